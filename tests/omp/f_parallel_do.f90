! f_parallel_do: Fortran PARALLEL DO with reductions and schedules.
! Reductions + * max min iand ior ieor .and. .or. .eqv. .neqv. on integer,
! real(8) and logical list items (with non-neutral original values),
! under static, static chunk, dynamic, guided and runtime schedules, a
! negative-stride loop, COLLAPSE(2), LASTPRIVATE and an ORDERED loop.
! Every result is compared with the sequential value.
program f_parallel_do
  use omp_lib
  implicit none
  integer, parameter :: n = 1000
  integer :: i, j, isum, iprod, imax, imin, iand_r, ior_r, ieor_r, last, k, pos
  integer(8) :: lsum, esum
  real(8) :: dsum, dmax, dmin
  logical :: land, lor, leqv, lneqv
  integer :: cnt(13, 7), seq(n)

  isum = 5; iprod = 1; imax = -100; imin = 10000
  iand_r = not(0); ior_r = 256; ieor_r = 85
  dsum = 0.5d0; dmax = -1d300; dmin = 1d300
  land = .true.; lor = .false.; leqv = .true.; lneqv = .false.
  !$omp parallel do reduction(+:isum,dsum) reduction(*:iprod) reduction(max:imax,dmax) &
  !$omp& reduction(min:imin,dmin) reduction(iand:iand_r) reduction(ior:ior_r) &
  !$omp& reduction(ieor:ieor_r) reduction(.and.:land) reduction(.or.:lor) &
  !$omp& reduction(.eqv.:leqv) reduction(.neqv.:lneqv) schedule(dynamic, 7)
  do i = 1, n
    isum = isum + i
    dsum = dsum + 0.25d0
    if (mod(i, 100) == 0) iprod = iprod * 2
    imax = max(imax, mod(i * 7919, 1009))
    imin = min(imin, mod(i * 7919, 1009) + 3)
    dmax = max(dmax, dble(mod(i * 31, 97)))
    dmin = min(dmin, -dble(mod(i * 31, 97)))
    iand_r = iand(iand_r, not(ishft(1, mod(i, 20))))
    ior_r = ior(ior_r, ishft(1, mod(i, 8)))
    ieor_r = ieor(ieor_r, i * 13)
    land = land .and. (i > 0)
    lor = lor .or. (i == 500)
    leqv = leqv .eqv. (mod(i, 3) == 0)
    lneqv = lneqv .neqv. (mod(i, 7) == 0)
  end do
  !$omp end parallel do
  block
    integer :: e_iand, e_ior, e_ieor, e_max, e_min
    logical :: e_eqv, e_neqv
    e_iand = not(0); e_ior = 256; e_ieor = 85; e_max = -100; e_min = 10000
    e_eqv = .true.; e_neqv = .false.
    do i = 1, n
      e_iand = iand(e_iand, not(ishft(1, mod(i, 20))))
      e_ior = ior(e_ior, ishft(1, mod(i, 8)))
      e_ieor = ieor(e_ieor, i * 13)
      e_max = max(e_max, mod(i * 7919, 1009))
      e_min = min(e_min, mod(i * 7919, 1009) + 3)
      e_eqv = e_eqv .eqv. (mod(i, 3) == 0)
      e_neqv = e_neqv .neqv. (mod(i, 7) == 0)
    end do
    call check(isum == 5 + n * (n + 1) / 2, 'sum')
    call check(dsum == 0.5d0 + 0.25d0 * n, 'real sum')
    call check(iprod == 1024, 'product')
    call check(imax == e_max, 'max')
    call check(imin == e_min, 'min')
    call check(dmax == 96d0, 'real max')
    call check(dmin == -96d0, 'real min')
    call check(iand_r == e_iand, 'iand')
    call check(ior_r == e_ior, 'ior')
    call check(ieor_r == e_ieor, 'ieor')
    call check(land, '.and.')
    call check(lor, '.or.')
    call check(leqv .eqv. e_eqv, '.eqv.')
    call check(lneqv .eqv. e_neqv, '.neqv.')
  end block

  ! schedules, 64-bit sums, negative stride
  esum = int(n, 8) * (n + 1) / 2
  lsum = 0
  !$omp parallel do reduction(+:lsum) schedule(static)
  do i = 1, n
    lsum = lsum + i
  end do
  call check(lsum == esum, 'static')
  lsum = 0
  !$omp parallel do reduction(+:lsum) schedule(static, 3)
  do i = n, 1, -1
    lsum = lsum + i
  end do
  call check(lsum == esum, 'static,3 negative stride')
  lsum = 0
  !$omp parallel do reduction(+:lsum) schedule(guided, 2)
  do i = 1, n, 3
    lsum = lsum + i
  end do
  call check(lsum == sum([(int(i, 8), i = 1, n, 3)]), 'guided stride 3')
  call omp_set_schedule(omp_sched_dynamic, 5)
  lsum = 0
  !$omp parallel do reduction(+:lsum) schedule(runtime)
  do i = 1, n
    lsum = lsum + i
  end do
  call check(lsum == esum, 'runtime')

  ! collapse
  cnt = 0
  !$omp parallel do collapse(2) schedule(dynamic, 3)
  do i = 1, 13
    do j = 1, 7
      !$omp atomic
      cnt(i, j) = cnt(i, j) + 1
    end do
  end do
  call check(all(cnt == 1), 'collapse(2)')

  ! lastprivate
  last = -1
  !$omp parallel do lastprivate(last, k) schedule(dynamic)
  do i = 1, n
    last = i * 2
    k = i
  end do
  call check(last == 2 * n .and. k == n, 'lastprivate')

  ! ordered
  pos = 0
  !$omp parallel do ordered schedule(dynamic, 2)
  do i = 1, n
    !$omp ordered
    pos = pos + 1
    seq(pos) = i
    !$omp end ordered
  end do
  call check(pos == n, 'ordered count')
  call check(all(seq == [(i, i = 1, n)]), 'ordered sequence')
contains
  subroutine check(cond, msg)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: msg
    if (.not. cond) then
      write (0, '(a,a)') 'FAIL f_parallel_do: ', msg
      stop 1
    end if
  end subroutine
end program
