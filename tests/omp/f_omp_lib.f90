! f_omp_lib: the Fortran omp_lib module (default integer kind 4).
! Calls every omp_lib routine that GCC 12's libgomp implements (outside
! task dependences / detach), which reach the omp_*_ entry points (or the
! C ones for bind(c) interfaces such as omp_alloc), and checks results:
! team queries, nested-level queries, ICV setters/getters (dynamic,
! nested, schedule, max active levels, default device, num teams, teams
! thread limit), devices and teams queries, places consistency, wtime /
! wtick, affinity format (set / get / capture with %n %N %L, the length
! result), pause, allocators (init with an alignment trait, default
! allocator, omp_alloc / omp_free), and omp_display_env /
! omp_display_affinity (stderr silenced with dup2 through iso_c_binding).
program f_omp_lib
  use omp_lib
  use iso_c_binding
  implicit none
  interface
    function c_dup(fd) bind(c, name='dup')
      import :: c_int
      integer(c_int), value :: fd
      integer(c_int) :: c_dup
    end function
    function c_dup2(a, b) bind(c, name='dup2')
      import :: c_int
      integer(c_int), value :: a, b
      integer(c_int) :: c_dup2
    end function
    function c_open(path, flags) bind(c, name='open')
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int), value :: flags
      integer(c_int) :: c_open
    end function
    function c_close(fd) bind(c, name='close')
      import :: c_int
      integer(c_int), value :: fd
      integer(c_int) :: c_close
    end function
  end interface
  integer :: n, t, nteams, i, chunk, bad, np, saved, devnull, rc
  integer(omp_sched_kind) :: kind
  integer :: ids(1024), pnums(1024)
  double precision :: t0, t1
  character(len=64) :: buf
  character(len=8) :: small
  integer(omp_allocator_handle_kind) :: al
  type(omp_alloctrait) :: traits(1)
  type(c_ptr) :: p
  integer(c_intptr_t) :: addr
  integer :: sizes(3)

  n = omp_get_max_threads()
  call check(n >= 1, 'max threads')
  call check(omp_get_num_threads() == 1 .and. omp_get_thread_num() == 0, 'serial queries')
  call check(.not. omp_in_parallel(), 'in_parallel outside')
  call check(omp_get_num_procs() >= 1, 'num procs')
  bad = 0
  !$omp parallel num_threads(3) reduction(+:bad)
  if (omp_get_num_threads() /= 3 .or. .not. omp_in_parallel()) bad = bad + 1
  if (omp_get_thread_num() < 0 .or. omp_get_thread_num() > 2) bad = bad + 1
  if (omp_get_level() /= 1 .or. omp_get_active_level() /= 1) bad = bad + 1
  if (omp_get_ancestor_thread_num(1) /= omp_get_thread_num()) bad = bad + 1
  if (omp_get_team_size(1) /= 3 .or. omp_get_team_size(0) /= 1) bad = bad + 1
  !$omp end parallel
  call check(bad == 0, 'team queries')

  call omp_set_num_threads(2)
  call check(omp_get_max_threads() == 2, 'set_num_threads')
  call omp_set_dynamic(.true.)
  call check(omp_get_dynamic(), 'set_dynamic true')
  call omp_set_dynamic(.false.)
  call check(.not. omp_get_dynamic(), 'set_dynamic false')
  call omp_set_nested(.true.)
  call check(omp_get_nested() .and. omp_get_max_active_levels() > 1, 'set_nested')
  call omp_set_nested(.false.)
  call check(.not. omp_get_nested(), 'set_nested false')
  call omp_set_max_active_levels(2)
  call check(omp_get_max_active_levels() == 2, 'max_active_levels')
  call check(omp_get_supported_active_levels() >= 2, 'supported levels')
  call omp_set_schedule(omp_sched_guided, 6)
  call omp_get_schedule(kind, chunk)
  call check(kind == omp_sched_guided .and. chunk == 6, 'schedule')
  call check(omp_get_thread_limit() >= 1, 'thread limit')
  call check(.not. omp_in_final(), 'in_final')
  call check(.not. omp_get_cancellation(), 'cancellation')
  call check(omp_get_proc_bind() == omp_proc_bind_false, 'proc_bind')
  call omp_set_default_device(0)
  call check(omp_get_default_device() == 0, 'default device')
  call check(omp_get_num_devices() == 0, 'num devices')
  call check(omp_is_initial_device(), 'is_initial_device')
  call check(omp_get_initial_device() == omp_get_num_devices(), 'initial device')
  call check(omp_get_device_num() == omp_get_initial_device(), 'device num')
  call check(omp_get_max_task_priority() == 0, 'max task priority')
  call omp_set_num_teams(3)
  call check(omp_get_max_teams() == 3, 'num teams')
  call omp_set_teams_thread_limit(2)
  call check(omp_get_teams_thread_limit() == 2, 'teams thread limit')
  nteams = 0
  !$omp teams num_teams(2)
  if (omp_get_team_num() == 0) nteams = omp_get_num_teams()
  !$omp end teams
  call check(nteams == 2, 'teams')
  call check(omp_get_num_teams() == 1 .and. omp_get_team_num() == 0, 'teams outside')

  ! places: unbound here, so 0 places and place number -1
  np = omp_get_num_places()
  call check(np >= 0, 'num places')
  do i = 0, np - 1
    t = omp_get_place_num_procs(i)
    call check(t >= 1, 'place procs')
    call omp_get_place_proc_ids(i, ids)
    call check(all(ids(1:t) >= 0), 'place ids')
  end do
  call check(omp_get_place_num_procs(np) == 0, 'procs of a bad place')
  if (np == 0) call check(omp_get_place_num() == -1, 'place num unbound')
  t = omp_get_partition_num_places()
  call omp_get_partition_place_nums(pnums)
  call check(t == np, 'partition')

  t0 = omp_get_wtime()
  call check(omp_get_wtick() > 0d0, 'wtick')
  do i = 1, 10000
    t1 = omp_get_wtime()
    call check(t1 >= t0, 'wtime monotonic')
  end do

  call omp_set_affinity_format('F %n/%N L%L')
  n = omp_get_affinity_format(buf)
  call check(n == 11 .and. buf == 'F %n/%N L%L', 'affinity format')
  n = omp_get_affinity_format(small)
  call check(n == 11 .and. small == 'F %n/%N ', 'affinity format truncated')
  n = omp_capture_affinity(buf, '')
  call check(n == 8 .and. buf == 'F 0/1 L0', 'capture affinity')
  sizes = -1
  !$omp parallel num_threads(3)
  block
    character(len=32) :: mine
    integer :: m
    m = omp_capture_affinity(mine, '%n:%N')
    if (mine == char(ichar('0') + omp_get_thread_num()) // ':3' .and. m == 3) &
      sizes(omp_get_thread_num() + 1) = m
  end block
  !$omp end parallel
  call check(all(sizes == 3), 'capture affinity in a team')

  call check(omp_pause_resource(omp_pause_soft, omp_get_initial_device()) == 0, 'pause')
  call check(omp_pause_resource_all(omp_pause_hard) == 0, 'pause all')
  bad = 0
  !$omp parallel num_threads(2) reduction(+:bad)
  bad = bad + 1
  !$omp end parallel
  call check(bad == 2, 'runtime after pause')

  traits(1)%key = omp_atk_alignment
  traits(1)%value = 256
  al = omp_init_allocator(omp_default_mem_space, 1, traits)
  call check(al /= omp_null_allocator, 'init_allocator')
  p = omp_alloc(100_c_size_t, al)
  addr = transfer(p, addr)
  call check(c_associated(p) .and. mod(addr, 256_c_intptr_t) == 0, 'aligned omp_alloc')
  call omp_free(p, al)
  call omp_set_default_allocator(al)
  call check(omp_get_default_allocator() == al, 'default allocator')
  call omp_set_default_allocator(omp_default_mem_alloc)
  call omp_destroy_allocator(al)

  ! display routines: stderr silenced
  saved = c_dup(2_c_int)
  devnull = c_open('/dev/null' // c_null_char, 1_c_int)
  rc = c_dup2(devnull, 2_c_int)
  call omp_display_env(.false.)
  call omp_display_env(.true.)
  call omp_display_affinity('')
  rc = c_dup2(saved, 2_c_int)
  rc = c_close(devnull)
  rc = c_close(saved)
contains
  subroutine check(cond, msg)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: msg
    if (.not. cond) then
      write (0, '(a,a)') 'FAIL f_omp_lib: ', msg
      stop 1
    end if
  end subroutine
end program
