! fortran_api: the Fortran entry points of libgomp.so.1 as gfortran's
! omp_lib module calls them (arguments by reference, hidden string
! lengths, logical(4) results, the integer(8) specific forms).
!  - locks: integer(omp_lock_kind) (4 bytes) and integer(omp_nest_lock_kind)
!    (8 bytes) locks; test results; nest counts; mutual exclusion in a team;
!  - strings: omp_set_affinity_format keeps trailing blanks;
!    omp_get_affinity_format / omp_capture_affinity return the full length
!    and fill the buffer blank padded, truncated when short; an empty
!    format means affinity-format-var;
!  - the *_8 forms (integer(8)/logical(8) arguments): omp_set_num_threads,
!    omp_set_dynamic, omp_set_nested, omp_set_schedule / omp_get_schedule,
!    omp_set_max_active_levels, omp_get_ancestor_thread_num,
!    omp_get_team_size, omp_set_num_teams, omp_set_teams_thread_limit,
!    omp_set_default_device, omp_get_place_num_procs,
!    omp_get_place_proc_ids, omp_get_partition_place_nums,
!    omp_init_allocator;
!  - logical results (omp_in_parallel, omp_get_dynamic, omp_in_final,
!    omp_is_initial_device, omp_get_cancellation);
!  - allocators through the bind(c) interfaces (omp_alloc, omp_free) with
!    an alignment trait; omp_pause_resource; omp_get_wtime / omp_get_wtick.
program fortran_api
  use omp_lib
  use, intrinsic :: iso_c_binding
  implicit none
  integer(omp_lock_kind) :: lk
  integer(omp_nest_lock_kind) :: nl
  integer(omp_sched_kind) :: kind
  integer :: n, chunk4, counter, ncounter, i, np, team_ok
  integer(8) :: chunk8, ids8(1024), nums8(1024)
  integer :: ids4(1024)
  character(len=40) :: buf
  character(len=5) :: small
  logical(8) :: l8
  integer(omp_allocator_handle_kind) :: al
  type(omp_alloctrait) :: tr(2)
  type(c_ptr) :: p
  double precision :: t0, t1

  call check(bit_size(lk) == 32, 'omp_lock_kind is 4 bytes')
  call check(bit_size(nl) == 64, 'omp_nest_lock_kind is 8 bytes')

  ! ---- locks ----
  call omp_init_lock(lk)
  call check(omp_test_lock(lk), 'test_lock on a free lock')
  call check(.not. omp_test_lock(lk), 'test_lock on a held lock')
  call omp_unset_lock(lk)
  call omp_init_nest_lock(nl)
  call check(omp_test_nest_lock(nl) == 1, 'nest count 1')
  call check(omp_test_nest_lock(nl) == 2, 'nest count 2')
  call omp_set_nest_lock(nl)
  call check(omp_test_nest_lock(nl) == 4, 'nest count 4')
  do i = 1, 4
    call omp_unset_nest_lock(nl)
  end do
  counter = 0
  ncounter = 0
  !$omp parallel num_threads(4) shared(counter, ncounter, lk, nl) private(i)
  do i = 1, 2000
    call omp_set_lock(lk)
    counter = counter + 1
    call omp_unset_lock(lk)
    call omp_set_nest_lock(nl)
    call omp_set_nest_lock(nl)
    ncounter = ncounter + 1
    call omp_unset_nest_lock(nl)
    call omp_unset_nest_lock(nl)
  end do
  !$omp end parallel
  call check(counter == 8000 .or. counter == 2000 * omp_get_max_threads(), 'lock exclusion')
  call check(ncounter == counter, 'nest lock exclusion')
  call omp_destroy_lock(lk)
  call omp_destroy_nest_lock(nl)

  ! ---- strings ----
  call omp_set_affinity_format("X%nY   ")
  n = omp_get_affinity_format(buf)
  call check(n == 7, 'get_affinity_format length keeps blanks')
  call check(buf == 'X%nY', 'get_affinity_format text (blank padded)')
  n = omp_get_affinity_format(small)
  call check(n == 7 .and. small == 'X%nY ', 'get_affinity_format into a short buffer')
  n = omp_capture_affinity(buf, "a%Lb")
  call check(n == 3 .and. buf == 'a0b', 'capture_affinity')
  n = omp_capture_affinity(small, "abcdefgh")
  call check(n == 8 .and. small == 'abcde', 'capture_affinity truncated')
  n = omp_capture_affinity(buf, "")
  call check(n == 6 .and. buf == 'X0Y', 'capture_affinity with the default format')
  n = omp_capture_affinity(buf, "%{thread_num}/%{num_threads}")
  call check(n == 3 .and. buf == '0/1', 'capture_affinity long names')
  team_ok = 0
  !$omp parallel num_threads(2) reduction(+:team_ok) private(buf, n)
  n = omp_capture_affinity(buf, "%n of %N")
  if (n == 6 .and. buf(1:1) == achar(iachar('0') + omp_get_thread_num()) .and. buf(2:6) == ' of 2') &
      team_ok = team_ok + 1
  !$omp end parallel
  call check(team_ok == 2, 'capture_affinity in a team')
  call omp_set_affinity_format("")
  n = omp_get_affinity_format(buf)
  call check(n == 0 .and. buf == '', 'empty affinity format')
  call omp_set_affinity_format("level %L thread %i affinity %A")

  ! ---- integer(8) / logical(8) forms ----
  call omp_set_num_threads(3_8)
  call check(omp_get_max_threads() == 3, 'omp_set_num_threads_8')
  l8 = .true.
  call omp_set_dynamic(l8)
  call check(omp_get_dynamic(), 'omp_set_dynamic_8')
  l8 = .false.
  call omp_set_dynamic(l8)
  call check(.not. omp_get_dynamic(), 'omp_set_dynamic_8 false')
  l8 = .true.
  call omp_set_nested(l8)
  call check(omp_get_max_active_levels() > 1, 'omp_set_nested_8')
  call omp_set_max_active_levels(2_8)
  call check(omp_get_max_active_levels() == 2, 'omp_set_max_active_levels_8')
  call omp_set_schedule(omp_sched_guided, 5_8)
  call omp_get_schedule(kind, chunk8)
  call check(kind == omp_sched_guided .and. chunk8 == 5, 'omp_set/get_schedule_8')
  call omp_set_schedule(omp_sched_dynamic, 7)
  call omp_get_schedule(kind, chunk4)
  call check(kind == omp_sched_dynamic .and. chunk4 == 7, 'omp_set/get_schedule')
  call check(omp_get_ancestor_thread_num(0_8) == 0, 'omp_get_ancestor_thread_num_8')
  call check(omp_get_team_size(0_8) == 1, 'omp_get_team_size_8')
  call check(omp_get_ancestor_thread_num(5_8) == -1, 'omp_get_ancestor_thread_num_8 beyond')
  call omp_set_num_teams(2_8)
  call check(omp_get_max_teams() == 2, 'omp_set_num_teams_8')
  call omp_set_teams_thread_limit(3_8)
  call check(omp_get_teams_thread_limit() == 3, 'omp_set_teams_thread_limit_8')
  call omp_set_default_device(0_8)
  call check(omp_get_default_device() == 0, 'omp_set_default_device_8')
  np = omp_get_num_places()
  if (np > 0) then
    n = omp_get_place_num_procs(0_8)
    call check(n == omp_get_place_num_procs(0), 'omp_get_place_num_procs_8')
    call omp_get_place_proc_ids(0_8, ids8)
    call omp_get_place_proc_ids(0, ids4)
    call check(all(ids8(1:n) == ids4(1:n)), 'omp_get_place_proc_ids_8')
    n = omp_get_partition_num_places()
    call omp_get_partition_place_nums(nums8)
    do i = 1, n
      call check(nums8(i) >= 0 .and. nums8(i) < np, 'omp_get_partition_place_nums_8')
    end do
  else
    call check(omp_get_place_num_procs(0_8) == 0, 'no places')
  end if

  ! ---- logical results ----
  call check(.not. omp_in_parallel(), 'omp_in_parallel outside')
  team_ok = 0
  !$omp parallel num_threads(2) reduction(+:team_ok)
  if (omp_in_parallel()) team_ok = team_ok + 1
  !$omp end parallel
  call check(team_ok == 2, 'omp_in_parallel inside')
  call check(.not. omp_in_final(), 'omp_in_final')
  call check(omp_is_initial_device(), 'omp_is_initial_device')
  call check(.not. omp_get_cancellation(), 'omp_get_cancellation')

  ! ---- allocators ----
  tr(1) = omp_alloctrait(omp_atk_alignment, 256)
  tr(2) = omp_alloctrait(omp_atk_fallback, omp_atv_null_fb)
  al = omp_init_allocator(omp_default_mem_space, 2, tr)
  call check(al /= omp_null_allocator, 'omp_init_allocator')
  p = omp_alloc(100_c_size_t, al)
  call check(c_associated(p), 'omp_alloc')
  call check(mod(transfer(p, 0_c_intptr_t), 256_c_intptr_t) == 0, 'alignment trait')
  call omp_free(p, omp_null_allocator)
  call omp_set_default_allocator(al)
  call check(omp_get_default_allocator() == al, 'omp_get_default_allocator')
  call omp_set_default_allocator(omp_default_mem_alloc)
  call omp_destroy_allocator(al)
  al = omp_init_allocator(omp_default_mem_space, 1_8, tr)
  call check(al /= omp_null_allocator, 'omp_init_allocator_8')
  call omp_destroy_allocator(al)
  tr(1) = omp_alloctrait(omp_atk_alignment, 3)
  al = omp_init_allocator(omp_default_mem_space, 1, tr)
  call check(al == omp_null_allocator, 'omp_init_allocator refuses alignment 3')

  ! ---- misc ----
  call check(omp_pause_resource(omp_pause_soft, omp_get_initial_device()) == 0, 'omp_pause_resource')
  call check(omp_pause_resource_all(omp_pause_soft) == 0, 'omp_pause_resource_all')
  t0 = omp_get_wtime()
  do while (omp_get_wtime() <= t0)
  end do
  t1 = omp_get_wtime()
  call check(t1 > t0 .and. omp_get_wtick() > 0d0 .and. omp_get_wtick() < 1d0, 'wtime/wtick')
  print '(A)', 'f_api: ok'

contains

  subroutine check(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      write (0, '(A,A)') 'FAIL fortran_api: ', what
      stop 1
    end if
  end subroutine check

end program fortran_api
