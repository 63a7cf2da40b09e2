! f_target_optional: target regions on the host with absent optional
! dummy arguments in has_device_addr. gfortran 12 passes such an argument
! to the region as a firstprivate entry with a NULL host address and a
! size; the host fallback must leave it NULL (present() false inside), not
! copy from it (weft-omp once did and crashed: GCC's
! libgomp.fortran/target-has-device-addr-3.f90). A present argument is
! the host's own variable, updated in place.
program f_target_optional
  use omp_lib
  implicit none
  integer :: x, r
  real :: y(5)
  integer, target :: z(3:5)
  integer, pointer :: p(:)

  x = 7
  y = 1.5
  z = 3
  call scalar(r)
  if (r /= -1) stop 1
  call scalar(r, x)
  if (r /= 8) stop 2
  if (x /= 8) stop 3
  call arr(r)
  if (r /= -1) stop 4
  p => z
  call arr(r, y, p)
  if (r /= 8) stop 5
  if (any(y /= 2.5)) stop 6
  if (any(z /= 4)) stop 7

contains
  subroutine scalar(res, a)
    integer, intent(out) :: res
    integer, optional :: a
    integer :: t
    t = -1
    !$omp target data map(a) use_device_addr(a)
    !$omp target has_device_addr(a) map(from: t)
      if (present(a)) then
        a = a + 1
        t = a
      else
        t = -1
      end if
    !$omp end target
    !$omp end target data
    res = t
  end subroutine

  subroutine arr(res, b, c)
    integer, intent(out) :: res
    real, optional :: b(:)
    integer, optional, pointer, intent(in) :: c(:)
    integer :: t
    t = -1
    !$omp target data map(b, c) use_device_addr(b, c)
    !$omp target has_device_addr(b, c) map(from: t)
      if (present(b)) then
        b = b + 1.0
        c = c + 1
        t = size(b) + size(c)
      else
        t = -1
      end if
    !$omp end target
    !$omp end target data
    res = t
  end subroutine
end program
