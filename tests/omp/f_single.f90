! f_single: SINGLE with COPYPRIVATE and NOWAIT in Fortran.
! COPYPRIVATE broadcasts a scalar, an array and a derived-type value from
! the thread that ran the block to every thread's private copies, many
! times; a SINGLE block runs once per encounter; NOWAIT singles run once.
program f_single
  use omp_lib
  implicit none
  type pair
    integer :: a
    real(8) :: b
  end type
  integer :: runs(100), r, bad, nw(10)
  integer :: x, arr(5), who, k
  type(pair) :: pr

  runs = 0
  nw = 0
  bad = 0
  !$omp parallel private(x, arr, who, pr, r, k) reduction(+:bad)
  do r = 1, 100
    !$omp single
    runs(r) = runs(r) + 1
    !$omp end single
    if (runs(r) /= 1) bad = bad + 1
  end do
  do r = 1, 50
    !$omp single
    who = omp_get_thread_num()
    x = r * 10 + who
    do k = 1, 5
      arr(k) = r * 1000 + who * 10 + k
    end do
    pr = pair(r, 0.5d0 * r)
    !$omp end single copyprivate(x, arr, who, pr)
    if (x /= r * 10 + who .or. pr%a /= r .or. pr%b /= 0.5d0 * r) bad = bad + 1
    if (who < 0 .or. who >= omp_get_num_threads()) bad = bad + 1
    do k = 1, 5
      if (arr(k) /= r * 1000 + who * 10 + k) bad = bad + 1
    end do
  end do
  do r = 1, 10
    !$omp single
    !$omp atomic
    nw(r) = nw(r) + 1
    !$omp end single nowait
  end do
  !$omp end parallel
  call check(bad == 0, 'copyprivate / once per encounter')
  call check(all(runs == 1), 'single ran once')
  call check(all(nw == 1), 'nowait single ran once')
contains
  subroutine check(cond, msg)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: msg
    if (.not. cond) then
      write (0, '(a,a)') 'FAIL f_single: ', msg
      stop 1
    end if
  end subroutine
end program
