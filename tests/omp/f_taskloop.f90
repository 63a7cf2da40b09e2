! f_taskloop: taskloop and task reductions in Fortran. taskloop with
! grainsize, num_tasks, a negative stride, collapse(2), nogroup and
! reduction; taskgroup task_reduction with tasks and a taskloop
! in_reduction; reduction(task, ...) on a do loop.
program f_taskloop
  use omp_lib
  implicit none
  integer :: i, j, k, rep, nth
  integer(8) :: s, t, u
  integer :: hit(17, 9)
  integer, volatile :: done(100)

  nth = omp_get_max_threads()
  do rep = 1, 5
    s = 0
    !$omp parallel
    !$omp single
    !$omp taskloop grainsize(7) reduction(+:s)
    do i = 1, 1000
      s = s + i
    end do
    !$omp end taskloop
    !$omp end single
    !$omp end parallel
    if (s /= 500500) stop 1

    s = 0
    !$omp parallel
    !$omp single
    !$omp taskloop num_tasks(6) reduction(+:s)
    do i = 300, -10, -3
      s = s + i
    end do
    !$omp end taskloop
    !$omp end single
    !$omp end parallel
    t = 0
    do i = 300, -10, -3
      t = t + i
    end do
    if (s /= t) stop 2

    hit = 0
    !$omp parallel
    !$omp single
    !$omp taskloop collapse(2) grainsize(5)
    do j = 1, 9
      do i = 1, 17
        hit(i, j) = hit(i, j) + 1
      end do
    end do
    !$omp end taskloop
    !$omp end single
    !$omp end parallel
    if (any(hit /= 1)) stop 3

    done = 0
    !$omp parallel
    !$omp single
    !$omp taskloop nogroup grainsize(1)
    do i = 1, 100
      done(i) = 1
    end do
    !$omp end taskloop
    !$omp taskwait
    if (any(done /= 1)) stop 4
    !$omp end single
    !$omp end parallel

    u = 0
    !$omp parallel
    !$omp single
    !$omp taskgroup task_reduction(+:u)
    do k = 1, 20
      !$omp task in_reduction(+:u) firstprivate(k)
      u = u + k
      !$omp end task
    end do
    !$omp taskloop in_reduction(+:u) grainsize(10)
    do i = 1, 100
      u = u + 1
    end do
    !$omp end taskloop
    !$omp end taskgroup
    !$omp end single
    !$omp end parallel
    if (u /= 310) stop 5

    u = 0
    !$omp parallel
    !$omp do reduction(task, +:u)
    do i = 1, 50
      !$omp task in_reduction(+:u) firstprivate(i)
      u = u + i
      !$omp end task
    end do
    !$omp end do
    !$omp end parallel
    if (u /= 1275) stop 6
  end do
  print '(a)', 'f_taskloop: ok'
end program f_taskloop
