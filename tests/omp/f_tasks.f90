! f_tasks: explicit tasks in Fortran.
! Recursive Fibonacci with TASK / TASKWAIT (compared with the closed
! sequence), many tasks from a SINGLE writing their own elements, TASKGROUP
! waiting for grandchildren, FINAL tasks (omp_in_final true, children
! included and done at once), IF(.false.) tasks (undeferred), and tasks
! created by every thread of the team.
program f_tasks
  use omp_lib
  implicit none
  integer(8) :: f, ref(0:25)
  integer :: i, slot(3000), leaves, per(0:63), bad
  logical :: fin, child_fin
  integer :: child_done

  ref(0) = 0; ref(1) = 1
  do i = 2, 25
    ref(i) = ref(i - 1) + ref(i - 2)
  end do
  !$omp parallel
  !$omp single
  f = fib(20)
  !$omp end single
  !$omp end parallel
  call check(f == ref(20), 'fib')

  slot = 0
  !$omp parallel
  !$omp single
  do i = 1, 3000
    !$omp task firstprivate(i) shared(slot)
    slot(i) = i * 2
    !$omp end task
  end do
  !$omp taskwait
  !$omp end single
  !$omp end parallel
  call check(all(slot == [(i * 2, i = 1, 3000)]), 'many tasks')

  leaves = 0
  !$omp parallel
  !$omp single
  !$omp taskgroup
  call spawn(3, leaves)
  !$omp end taskgroup
  call check(leaves == 27, 'taskgroup waits for descendants')
  fin = .false.; child_fin = .false.; child_done = 0
  !$omp task final(.true.) shared(fin, child_fin, child_done)
  fin = omp_in_final()
  !$omp task shared(child_fin, child_done)
  child_fin = omp_in_final()
  child_done = 1
  !$omp end task
  if (child_done /= 1) child_done = -1
  !$omp end task
  !$omp taskwait
  call check(fin .and. child_fin .and. child_done == 1, 'final / included tasks')
  i = 0
  !$omp task if(.false.) shared(i)
  i = 7
  !$omp end task
  call check(i == 7, 'undeferred task')
  !$omp end single
  !$omp end parallel

  per = 0
  bad = 0
  !$omp parallel shared(per) reduction(+:bad)
  block
    integer :: k, me
    me = omp_get_thread_num()
    do k = 1, 100
      !$omp task firstprivate(me) shared(per)
      !$omp atomic
      per(me) = per(me) + 1
      !$omp end task
    end do
    !$omp taskwait
    if (per(me) /= 100) bad = bad + 1
  end block
  !$omp end parallel
  call check(bad == 0, 'tasks from every thread')
contains
  recursive function fib(n) result(r)
    integer, intent(in) :: n
    integer(8) :: r, a, b
    if (n < 2) then
      r = n
      return
    end if
    !$omp task shared(a) if(n > 8)
    a = fib(n - 1)
    !$omp end task
    !$omp task shared(b) if(n > 8)
    b = fib(n - 2)
    !$omp end task
    !$omp taskwait
    r = a + b
  end function

  recursive subroutine spawn(depth, counter)
    integer, intent(in) :: depth
    integer, intent(inout) :: counter
    integer :: k
    if (depth == 0) then
      !$omp atomic
      counter = counter + 1
      return
    end if
    do k = 1, 3
      !$omp task shared(counter)
      call spawn(depth - 1, counter)
      !$omp end task
    end do
  end subroutine

  subroutine check(cond, msg)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: msg
    if (.not. cond) then
      write (0, '(a,a)') 'FAIL f_tasks: ', msg
      stop 1
    end if
  end subroutine
end program
