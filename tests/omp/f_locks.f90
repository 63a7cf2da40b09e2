! f_locks: omp_lib lock routines in Fortran (omp_*_lock_ entry points).
! A simple lock and a nest lock protect non-atomic counters (no lost
! update); omp_test_lock is .true. on a free lock and .false. while
! another thread holds it; omp_test_nest_lock returns the nesting count
! for the owner and 0 for another thread; ordering by barriers only.
program f_locks
  use omp_lib
  implicit none
  integer(omp_lock_kind) :: lk
  integer(omp_nest_lock_kind) :: nl
  integer :: c1, c2, r, tmp, nthr, bad, lockruns

  call omp_init_lock(lk)
  call omp_init_nest_lock(nl)
  c1 = 0; c2 = 0; nthr = 0
  !$omp parallel private(r, tmp) shared(c1, c2, nthr)
  !$omp single
  nthr = omp_get_num_threads()
  !$omp end single
  do r = 1, 2000
    call omp_set_lock(lk)
    tmp = c1
    c1 = tmp + 1
    call omp_unset_lock(lk)
    call omp_set_nest_lock(nl)
    call omp_set_nest_lock(nl)
    tmp = c2
    c2 = tmp + 1
    call omp_unset_nest_lock(nl)
    call omp_unset_nest_lock(nl)
  end do
  !$omp end parallel
  call check(nthr >= 1 .and. nthr == omp_get_max_threads(), 'team size')
  call check(c1 == 2000 * nthr .and. c2 == 2000 * nthr, 'lock-protected counters')

  bad = 0
  lockruns = 0
  !$omp parallel num_threads(2) reduction(+:bad, lockruns)
  lockruns = lockruns + 1
  if (omp_get_thread_num() == 0) then
    if (.not. omp_test_lock(lk)) bad = bad + 1
    if (omp_test_nest_lock(nl) /= 1) bad = bad + 1
    if (omp_test_nest_lock(nl) /= 2) bad = bad + 1
  end if
  !$omp barrier
  if (omp_get_thread_num() == 1) then
    if (omp_test_lock(lk)) bad = bad + 1
    if (omp_test_nest_lock(nl) /= 0) bad = bad + 1
  end if
  !$omp barrier
  if (omp_get_thread_num() == 0) then
    call omp_unset_lock(lk)
    call omp_unset_nest_lock(nl)
    call omp_unset_nest_lock(nl)
  end if
  !$omp barrier
  if (omp_get_thread_num() == 1) then
    if (.not. omp_test_lock(lk)) bad = bad + 1
    call omp_unset_lock(lk)
    if (omp_test_nest_lock(nl) /= 1) bad = bad + 1
    call omp_unset_nest_lock(nl)
  end if
  !$omp end parallel
  call check(bad == 0 .and. lockruns == 2, 'test_lock / test_nest_lock')
  call omp_destroy_lock(lk)
  call omp_destroy_nest_lock(nl)
contains
  subroutine check(cond, msg)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: msg
    if (.not. cond) then
      write (0, '(a,a)') 'FAIL f_locks: ', msg
      stop 1
    end if
  end subroutine
end program
