! f_task_depend: the depend clause in Fortran.
! An out task that sleeps before it writes, then readers that must see
! its value (for 10 rounds); an inout chain whose result depends on the
! order; mutexinoutset members that must not overlap; an undeferred
! (IF(.false.)) reader and a TASKWAIT DEPEND that must wait for the
! writers; array elements as separate dependences; DETACH with
! omp_fulfill_event.
program f_task_depend
  use omp_lib
  implicit none
  integer :: x, round, r, i, inside, seen, v(8), flag
  integer(omp_event_handle_kind) :: ev
  integer(8) :: c, want
  logical :: ok

  x = 0
  ok = .true.
  !$omp parallel
  !$omp single
  do round = 1, 10
    !$omp task depend(out: x) shared(x) firstprivate(round)
    call nap()
    x = round
    !$omp end task
    do r = 1, 3
      !$omp task depend(in: x) shared(x, ok) firstprivate(round)
      if (x /= round) ok = .false.
      !$omp end task
    end do
  end do
  !$omp end single
  !$omp end parallel
  call check(ok .and. x == 10, 'out then in')

  c = 1
  !$omp parallel
  !$omp single
  do i = 1, 100
    !$omp task depend(inout: c) shared(c) firstprivate(i)
    if (mod(i, 40) == 0) call nap()
    c = mod(2 * c + i, 1000003_8)
    !$omp end task
  end do
  !$omp end single
  !$omp end parallel
  want = 1
  do i = 1, 100
    want = mod(2 * want + i, 1000003_8)
  end do
  call check(c == want, 'inout chain')

  x = 0
  inside = 0
  ok = .true.
  !$omp parallel
  !$omp single
  !$omp task depend(out: x) shared(x)
  call nap()
  x = 50
  !$omp end task
  do i = 1, 12
    !$omp task depend(mutexinoutset: x) shared(x, inside, ok)
    !$omp atomic capture
    inside = inside + 1
    r = inside
    !$omp end atomic
    if (r /= 1) ok = .false.
    seen = x
    call nap()
    x = seen + 1
    !$omp atomic
    inside = inside - 1
    !$omp end task
  end do
  !$omp task depend(in: x) shared(x, seen)
  seen = x
  !$omp end task
  !$omp end single
  !$omp end parallel
  call check(ok .and. seen == 62 .and. x == 62, 'mutexinoutset')

  x = 0
  v = 0
  ok = .true.
  !$omp parallel
  !$omp single
  !$omp task depend(out: x) shared(x)
  call nap()
  call nap()
  x = 7
  !$omp end task
  !$omp task depend(in: x) if(.false.) shared(x, ok)
  if (x /= 7) ok = .false.
  !$omp end task
  do i = 1, 8
    !$omp task depend(out: v(i)) shared(v) firstprivate(i)
    if (mod(i, 2) == 0) call nap()
    v(i) = i * 3
    !$omp end task
  end do
  !$omp taskwait depend(in: v(4))
  if (v(4) /= 12) ok = .false.
  !$omp taskwait
  !$omp end single
  !$omp end parallel
  call check(ok .and. sum(v) == 108, 'undeferred and taskwait depend')

  ! detach: a task that fulfils its own event; then a task whose dependant
  ! must wait for the event, fulfilled by a task beside it (checked at two
  ! threads or more: with one, a runtime may run the first task at once
  ! and the order is the program's).
  x = 0
  !$omp parallel
  !$omp single
  !$omp task detach(ev) shared(x)
  call omp_fulfill_event(ev)
  x = 1
  !$omp end task
  !$omp taskwait
  !$omp end single
  !$omp end parallel
  call check(x == 1, 'detach: fulfilled in its own body')
  x = 0
  seen = -1
  flag = 0
  !$omp parallel
  !$omp single
  !$omp task detach(ev) depend(out: x) shared(x)
  x = 1
  !$omp end task
  !$omp task depend(in: x) shared(x, seen, flag)
  !$omp atomic read
  seen = flag
  !$omp end atomic
  seen = seen * 10 + x
  !$omp end task
  !$omp task firstprivate(ev) shared(flag)
  call nap()
  !$omp atomic write
  flag = 1
  !$omp end atomic
  call omp_fulfill_event(ev)
  !$omp end task
  !$omp taskwait
  !$omp end single
  !$omp end parallel
  if (omp_get_max_threads() > 1) call check(seen == 11, 'detach: the dependant waits for the event')
  print '(a)', 'f_task_depend: ok'

contains

  subroutine nap()
    integer(8) :: t0, t1, rate
    call system_clock(t0, rate)
    do
      call system_clock(t1)
      if ((t1 - t0) * 10000_8 >= 3_8 * rate) exit
    end do
  end subroutine nap

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(*), intent(in) :: what
    if (.not. cond) then
      write (0, '(a,a)') 'FAIL f_task_depend: ', what
      stop 1
    end if
  end subroutine check
end program f_task_depend
