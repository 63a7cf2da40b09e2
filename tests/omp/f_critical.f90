! f_critical: CRITICAL (unnamed and named) and ATOMIC in Fortran.
! Non-atomic read / delay / write increments of shared counters inside
! the constructs lose no update: the counts are exactly threads x rounds.
! Two names protect two counters; ATOMIC UPDATE on integer and real(8).
program f_critical
  use omp_lib
  implicit none
  integer, parameter :: rounds = 2000
  integer :: c1, c2, c3, r, nthr, tmp, k
  integer :: ai
  real(8) :: ad
  integer, volatile :: sink

  c1 = 0; c2 = 0; c3 = 0; ai = 0; ad = 0d0; nthr = 0
  !$omp parallel private(r, tmp, k, sink) shared(c1, c2, c3, ai, ad, nthr)
  !$omp single
  nthr = omp_get_num_threads()
  !$omp end single
  do r = 1, rounds
    !$omp critical
    tmp = c1
    do k = 1, 20
      sink = k
    end do
    c1 = tmp + 1
    !$omp end critical
    !$omp critical (alpha)
    tmp = c2
    do k = 1, 20
      sink = k
    end do
    c2 = tmp + 1
    !$omp end critical (alpha)
    !$omp critical (beta)
    tmp = c3
    c3 = tmp + 2
    !$omp end critical (beta)
    !$omp atomic update
    ai = ai + 3
    !$omp atomic
    ad = ad + 0.5d0
  end do
  !$omp end parallel
  call check(nthr >= 1 .and. nthr == omp_get_max_threads(), 'team size')
  call check(c1 == nthr * rounds, 'unnamed critical')
  call check(c2 == nthr * rounds, 'named critical alpha')
  call check(c3 == 2 * nthr * rounds, 'named critical beta')
  call check(ai == 3 * nthr * rounds, 'atomic integer')
  call check(ad == 0.5d0 * nthr * rounds, 'atomic real')
contains
  subroutine check(cond, msg)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: msg
    if (.not. cond) then
      write (0, '(a,a)') 'FAIL f_critical: ', msg
      stop 1
    end if
  end subroutine
end program
