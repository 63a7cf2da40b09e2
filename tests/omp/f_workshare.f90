! f_workshare: the Fortran WORKSHARE construct.
! Array assignments, an elemental intrinsic, WHERE / ELSEWHERE, FORALL,
! a scalar assignment (done by one thread, visible to all after the end
! barrier), an array reduction intrinsic (SUM), and ATOMIC / CRITICAL
! inside workshare; a second workshare with NOWAIT followed by a barrier.
! Results are compared with the serial computation.
program f_workshare
  use omp_lib
  implicit none
  integer, parameter :: n = 2000
  real(8) :: a(n), b(n), c(n), ref(n), s, total
  integer :: m(n), mref(n), i, cnt, bad

  a = [(dble(i), i = 1, n)]
  b = [(dble(mod(i * 7, 13)), i = 1, n)]
  cnt = 0
  bad = 0
  !$omp parallel shared(a, b, c, m, s, total, cnt) reduction(+:bad)
  !$omp workshare
  c = a * 2d0 + b
  c = sqrt(c * c)
  where (b > 6d0)
    c = -c
  elsewhere
    c = c + 1d0
  end where
  forall (i = 1:n, mod(i, 5) == 0) m(i) = i * 3
  forall (i = 1:n, mod(i, 5) /= 0) m(i) = -i
  s = 42d0
  total = sum(a)
  !$omp atomic
  cnt = cnt + 1
  !$omp end workshare
  ! end barrier: everything is visible
  if (s /= 42d0 .or. total /= dble(n) * (n + 1) / 2d0) bad = bad + 1
  !$omp workshare
  a = a + 1d0
  !$omp end workshare nowait
  !$omp barrier
  if (a(n) /= dble(n) + 1d0) bad = bad + 1
  !$omp end parallel

  do i = 1, n
    ref(i) = abs(dble(i) * 2d0 + dble(mod(i * 7, 13)))
    if (dble(mod(i * 7, 13)) > 6d0) then
      ref(i) = -ref(i)
    else
      ref(i) = ref(i) + 1d0
    end if
    if (mod(i, 5) == 0) then
      mref(i) = i * 3
    else
      mref(i) = -i
    end if
  end do
  call check(bad == 0, 'scalar / sum / nowait')
  call check(all(c == ref), 'array assignment / where')
  call check(all(m == mref), 'forall')
  call check(cnt == 1, 'atomic in workshare ran once')
  call check(all(a == [(dble(i) + 1d0, i = 1, n)]), 'second workshare')
contains
  subroutine check(cond, msg)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: msg
    if (.not. cond) then
      write (0, '(a,a)') 'FAIL f_workshare: ', msg
      stop 1
    end if
  end subroutine
end program
