! f_threadprivate: THREADPRIVATE common blocks and module variables, COPYIN.
! RUN-ENV: OMP_NUM_THREADS=2
! RUN-ENV: OMP_NUM_THREADS=4
! RUN-ENV: OMP_NUM_THREADS=8
! gfortran makes them thread-local variables: every OpenMP thread, also
! when threads outnumber CPUs, keeps its own copy across barriers in which
! the others write theirs; COPYIN gives every thread the primary thread's
! values; the copies persist into the next region of the same size.
module f_tp_mod
  implicit none
  integer :: counter
  real(8) :: work(100)
  !$omp threadprivate(counter, work)
end module f_tp_mod

program f_threadprivate
  use omp_lib
  use f_tp_mod
  implicit none
  integer :: cb_a, cb_b(10)
  common /cblk/ cb_a, cb_b
  !$omp threadprivate(/cblk/)
  integer :: it, me, bad, k

  bad = 0
  call omp_set_dynamic(.false.)
  do it = 1, 100
    !$omp parallel private(me, k) reduction(+:bad)
    me = omp_get_thread_num()
    counter = me * 1000 + it
    cb_a = -me - it
    do k = 1, 10
      cb_b(k) = me + k
    end do
    work(it) = dble(me)
    !$omp barrier
    if (counter /= me * 1000 + it) bad = bad + 1
    if (cb_a /= -me - it) bad = bad + 1
    do k = 1, 10
      if (cb_b(k) /= me + k) bad = bad + 1
    end do
    if (work(it) /= dble(me)) bad = bad + 1
    !$omp end parallel
  end do
  if (bad /= 0) then
    print *, 'FAIL: copies shared across barriers:', bad
    stop 1
  end if

  ! persistence into the next region
  !$omp parallel private(me) reduction(+:bad)
  me = omp_get_thread_num()
  if (counter /= me * 1000 + 100) bad = bad + 1
  !$omp end parallel
  if (bad /= 0) then
    print *, 'FAIL: copies lost between regions:', bad
    stop 1
  end if

  ! COPYIN of a common block and a module variable
  do it = 1, 20
    cb_a = 500 + it
    cb_b = it
    counter = 77 * it
    !$omp parallel copyin(/cblk/, counter) private(k) reduction(+:bad)
    if (cb_a /= 500 + it .or. counter /= 77 * it) bad = bad + 1
    do k = 1, 10
      if (cb_b(k) /= it) bad = bad + 1
    end do
    !$omp end parallel
  end do
  if (bad /= 0) then
    print *, 'FAIL: copyin:', bad
    stop 1
  end if
  print '(a,i0,a)', 'f_threadprivate: ok (', omp_get_max_threads(), ' threads)'
end program f_threadprivate
