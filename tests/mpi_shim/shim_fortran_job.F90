! A Fortran MPI program that knows nothing of railyard: every collective
! the shim intercepts (the blocking ones with the v-forms, and non-blocking ones completed by
! MPI_Wait, MPI_Waitall and an MPI_Test loop), through mpif.h (BINDING_MPIF_H), `use mpi`
! (BINDING_USE_MPI) or `use mpi_f08` (BINDING_USE_MPI_F08), on
! MPI_COMM_WORLD and a communicator from MPI_Comm_split, in place and not,
! checked against the serial result. ctest runs it without and with the
! shim (tests/mpi_shim/run_shim_job.sh) and compares what rank 0 prints.
program shim_fortran_job
#if defined(BINDING_USE_MPI_F08)
  use mpi_f08
  implicit none
  type(MPI_Comm) :: half
#elif defined(BINDING_USE_MPI)
  use mpi
  implicit none
  integer :: half
#else
  implicit none
  include 'mpif.h'
  integer :: half
#endif
  integer :: rank, size, ierr, failures, total
  failures = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  call check_all(MPI_COMM_WORLD, 70001)
  call check_all(MPI_COMM_WORLD, 5)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), -rank, half, ierr)
  call check_all(half, 40000)
  call MPI_Comm_free(half, ierr)
  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0)', 'failures ', total
  call MPI_Finalize(ierr)
  if (total /= 0) stop 1

contains

  integer function value_of(r, i)
    integer, intent(in) :: r, i
    value_of = mod(r * 7 + mod(i, 13), 11) - 3
  end function value_of

  ! Element i summed over ranks 0 .. ranks - 1.
  integer function sum_of_values(ranks, i)
    integer, intent(in) :: ranks, i
    integer :: r
    sum_of_values = 0
    do r = 0, ranks - 1
      sum_of_values = sum_of_values + value_of(r, i)
    end do
  end function sum_of_values

  ! Allgather: rank me's block, and the whole gathered vector checked.
  subroutine fill_own_block(blocks, me, n)
    integer, intent(inout) :: blocks(:)
    integer, intent(in) :: me, n
    integer :: i
    do i = 1, n
      blocks(me * n + i) = me * 1000 + mod(i, 97)
    end do
  end subroutine fill_own_block

  subroutine check_gathered(blocks, n, ranks, what)
    integer, intent(in) :: blocks(:), n, ranks
    character(len=*), intent(in) :: what
    integer :: i
    do i = 1, n * ranks
      if (blocks(i) /= ((i - 1) / n) * 1000 + mod(mod(i - 1, n) + 1, 97)) then
        call expect(.false., what)
        exit
      end if
    end do
  end subroutine check_gathered

  ! Alltoall: element i of the block rank r sends to rank me.
  integer function exchanged_value(r, me, n, i)
    integer, intent(in) :: r, me, n, i
    exchanged_value = r * 100000 + me * 1000 + mod(me * n + i, 89)
  end function exchanged_value

  subroutine fill_sent_blocks(blocks, me, n, ranks)
    integer, intent(inout) :: blocks(:)
    integer, intent(in) :: me, n, ranks
    integer :: d, i
    do d = 0, ranks - 1
      do i = 1, n
        blocks(d * n + i) = exchanged_value(me, d, n, i)
      end do
    end do
  end subroutine fill_sent_blocks

  subroutine check_exchanged(every, me, n, ranks, what)
    integer, intent(in) :: every(:), me, n, ranks
    character(len=*), intent(in) :: what
    integer :: r, i
    do r = 0, ranks - 1
      do i = 1, n
        if (every(r * n + i) /= exchanged_value(r, me, n, i)) then
          call expect(.false., what)
          exit
        end if
      end do
    end do
  end subroutine check_exchanged

  subroutine expect(condition, what)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: what
    if (.not. condition) then
      failures = failures + 1
      if (failures <= 10) print '(a, i0, 2a)', 'rank ', rank, ': FAILED ', what
    end if
  end subroutine expect

  subroutine check_all(comm, n)
#if defined(BINDING_USE_MPI_F08)
    type(MPI_Comm), intent(in) :: comm
#else
    integer, intent(in) :: comm
#endif
    integer, intent(in) :: n
    integer :: me, ranks, i, r, rc, expected
    logical :: done
#if defined(BINDING_USE_MPI_F08)
    type(MPI_Request) :: request, requests(3)
#else
    integer :: request, requests(3)
#endif
    integer, allocatable :: a(:), b(:), c(:), blocks(:), every(:)
    integer, allocatable :: counts(:), displs(:), sent(:), at(:)
    double precision, allocatable :: x(:), y(:)
    call MPI_Comm_rank(comm, me, rc)
    call MPI_Comm_size(comm, ranks, rc)
    allocate(a(n), b(n), c(n), blocks(n * ranks), every(n * ranks), x(n), y(n))
    allocate(counts(ranks), displs(ranks), sent(ranks), at(ranks))
    do i = 1, n
      a(i) = value_of(me, i)
    end do
    ! Allreduce, out of place then in place.
    call MPI_Allreduce(a, b, n, MPI_INTEGER, MPI_SUM, comm, rc)
    call expect(rc == MPI_SUCCESS, 'allreduce status')
    call MPI_Allreduce(MPI_IN_PLACE, a, n, MPI_INTEGER, MPI_MAX, comm, rc)
    do i = 1, n
      expected = sum_of_values(ranks, i)
      if (b(i) /= expected) then
        call expect(.false., 'allreduce sum')
        exit
      end if
      expected = -100
      do r = 0, ranks - 1
        expected = max(expected, value_of(r, i))
      end do
      if (a(i) /= expected) then
        call expect(.false., 'allreduce max in place')
        exit
      end if
    end do
    ! Reduce to the last rank in place, then bcast doubles from it.
    do i = 1, n
      a(i) = value_of(me, i)
    end do
    if (me == ranks - 1) then
      call MPI_Reduce(MPI_IN_PLACE, a, n, MPI_INTEGER, MPI_SUM, ranks - 1, comm, rc)
    else
      call MPI_Reduce(a, b, n, MPI_INTEGER, MPI_SUM, ranks - 1, comm, rc)
    end if
    x = dble(a)
    call MPI_Bcast(x, n, MPI_DOUBLE_PRECISION, ranks - 1, comm, rc)
    do i = 1, n
      expected = sum_of_values(ranks, i)
      if (x(i) /= dble(expected)) then
        call expect(.false., 'reduce + bcast')
        exit
      end if
    end do
    ! Allgather (in place) and alltoall.
    call fill_own_block(blocks, me, n)
    call MPI_Allgather(MPI_IN_PLACE, 0, MPI_INTEGER, blocks, n, MPI_INTEGER, comm, rc)
    call check_gathered(blocks, n, ranks, 'allgather in place')
    call fill_sent_blocks(blocks, me, n, ranks)
    call MPI_Alltoall(blocks, n, MPI_INTEGER, every, n, MPI_INTEGER, comm, rc)
    call check_exchanged(every, me, n, ranks, 'alltoall')
    ! Reduce_scatter_block: block `me` of the sum.
    call MPI_Reduce_scatter_block(blocks, b, n, MPI_INTEGER, MPI_SUM, comm, rc)
    do i = 1, n
      expected = 0
      do r = 0, ranks - 1
        expected = expected + exchanged_value(r, me, n, i)
      end do
      if (b(i) /= expected) then
        call expect(.false., 'reduce_scatter_block')
        exit
      end if
    end do
    ! Gather into the last rank in place, scatter from rank 0 in place.
    do i = 1, n
      a(i) = me * 1000 + mod(i, 97)
    end do
    if (me == ranks - 1) then
      call fill_own_block(every, me, n)
      call MPI_Gather(MPI_IN_PLACE, 0, MPI_INTEGER, every, n, MPI_INTEGER, ranks - 1, comm, rc)
      call check_gathered(every, n, ranks, 'gather in place')
    else
      call MPI_Gather(a, n, MPI_INTEGER, every, n, MPI_INTEGER, ranks - 1, comm, rc)
    end if
    call expect(rc == MPI_SUCCESS, 'gather status')
    if (me == 0) then
      do r = 0, ranks - 1
        call fill_own_block(blocks, r, n)
      end do
      call MPI_Scatter(blocks, n, MPI_INTEGER, MPI_IN_PLACE, 0, MPI_INTEGER, 0, comm, rc)
      b = blocks(1:n)
    else
      call MPI_Scatter(blocks, n, MPI_INTEGER, b, n, MPI_INTEGER, 0, comm, rc)
    end if
    do i = 1, n
      if (b(i) /= a(i)) then
        call expect(.false., 'scatter in place')
        exit
      end if
    end do
    ! The v-forms, rank r's blocks n - mod(r, 3) long: allgatherv packed;
    ! alltoallv each block at d * n, the rest of it untouched; reduce_scatter.
    do r = 0, ranks - 1
      counts(r + 1) = n - mod(r, 3)
    end do
    displs(1) = 0
    do r = 2, ranks
      displs(r) = displs(r - 1) + counts(r - 1)
    end do
    every = -1
    call MPI_Allgatherv(a, counts(me + 1), MPI_INTEGER, every, counts, displs, MPI_INTEGER, &
                        comm, rc)
    call expect(rc == MPI_SUCCESS, 'allgatherv status')
    do r = 0, ranks - 1
      do i = 1, counts(r + 1)
        if (every(displs(r + 1) + i) /= r * 1000 + mod(i, 97)) then
          call expect(.false., 'allgatherv')
          exit
        end if
      end do
    end do
    do r = 0, ranks - 1
      sent(r + 1) = n - mod(me + r, 3)
      at(r + 1) = r * n
    end do
    call fill_sent_blocks(blocks, me, n, ranks)
    every = -1
    call MPI_Alltoallv(blocks, sent, at, MPI_INTEGER, every, sent, at, MPI_INTEGER, comm, rc)
    call expect(rc == MPI_SUCCESS, 'alltoallv status')
    do r = 0, ranks - 1
      do i = 1, n
        if (i <= sent(r + 1)) then
          expected = exchanged_value(r, me, n, i)
        else
          expected = -1
        end if
        if (every(r * n + i) /= expected) then
          call expect(.false., 'alltoallv')
          exit
        end if
      end do
    end do
    do i = 1, n * ranks
      every(i) = value_of(me, i)
    end do
    call MPI_Reduce_scatter(every, b, counts, MPI_INTEGER, MPI_SUM, comm, rc)
    call expect(rc == MPI_SUCCESS, 'reduce_scatter status')
    do i = 1, counts(me + 1)
      if (b(i) /= sum_of_values(ranks, displs(me + 1) + i)) then
        call expect(.false., 'reduce_scatter')
        exit
      end if
    end do
    call MPI_Barrier(comm, rc)
    call expect(rc == MPI_SUCCESS, 'barrier')
    ! Non-blocking: an iallreduce waited for alone; an ibcast, an
    ! iallgather and an ibarrier waited for together; an ialltoall tested
    ! until done.
    do i = 1, n
      a(i) = value_of(me, i)
    end do
    call MPI_Iallreduce(a, c, n, MPI_INTEGER, MPI_SUM, comm, request, rc)
    call MPI_Wait(request, MPI_STATUS_IGNORE, rc)
    call expect(rc == MPI_SUCCESS, 'iallreduce status')
    do i = 1, n
      expected = sum_of_values(ranks, i)
      if (c(i) /= expected) then
        call expect(.false., 'iallreduce sum')
        exit
      end if
    end do
    if (me == 0) c = a
    call MPI_Ibcast(c, n, MPI_INTEGER, 0, comm, requests(1), rc)
    call fill_own_block(blocks, me, n)
    call MPI_Iallgather(MPI_IN_PLACE, 0, MPI_INTEGER, blocks, n, MPI_INTEGER, comm, &
                        requests(2), rc)
    call MPI_Ibarrier(comm, requests(3), rc)
    call MPI_Waitall(3, requests, MPI_STATUSES_IGNORE, rc)
    call expect(rc == MPI_SUCCESS, 'waitall status')
    do i = 1, n
      if (c(i) /= value_of(0, i)) then
        call expect(.false., 'ibcast')
        exit
      end if
    end do
    call check_gathered(blocks, n, ranks, 'iallgather in place')
    call fill_sent_blocks(blocks, me, n, ranks)
    call MPI_Ialltoall(blocks, n, MPI_INTEGER, every, n, MPI_INTEGER, comm, request, rc)
    done = .false.
    do while (.not. done)
      call MPI_Test(request, done, MPI_STATUS_IGNORE, rc)
    end do
    call expect(rc == MPI_SUCCESS, 'ialltoall test status')
    call check_exchanged(every, me, n, ranks, 'ialltoall')
    y = x
    if (rank == 0) print '(a, i0, a, i0, a, i0)', 'ranks ', ranks, ' n ', n, ' checksum ', sum(int(b, kind=8))
    deallocate(a, b, c, blocks, every, x, y, counts, displs, sent, at)
  end subroutine check_all

end program shim_fortran_job
