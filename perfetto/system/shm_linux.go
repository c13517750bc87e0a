package system

import (
	"errors"
	"fmt"
	"syscall"
	"unsafe"
)

const (
	fAddSeals  = 1033 // F_ADD_SEALS
	fGetSeals  = 1034 // F_GET_SEALS
	sealSeal   = 0x1
	sealShrink = 0x2
	sealGrow   = 0x4
	maxSMB     = 64 << 20
	mfdCloexec = 0x1
	mfdSealing = 0x2
)

func memfdCreate(name string) (int, error) {
	p, err := syscall.BytePtrFromString(name)
	if err != nil {
		return -1, err
	}
	fd, _, errno := syscall.Syscall(sysMemfdCreate, uintptr(unsafe.Pointer(p)), mfdCloexec|mfdSealing, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// createSMB makes a producer-provided buffer: a sealed memfd (it can never
// shrink under either process, so no access can fault) mapped shared.
func createSMB(size, pageSize int) (int, []byte, error) {
	if pageSize <= 0 || size < pageSize || size%pageSize != 0 || size > maxSMB {
		return -1, nil, fmt.Errorf("invalid buffer size %d / page size %d", size, pageSize)
	}
	fd, err := memfdCreate("vkgen-perfetto-smb")
	if err != nil {
		return -1, nil, err
	}
	if err := syscall.Ftruncate(fd, int64(size)); err != nil {
		syscall.Close(fd)
		return -1, nil, err
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), fAddSeals, sealShrink|sealGrow|sealSeal); errno != 0 {
		syscall.Close(fd)
		return -1, nil, errno
	}
	mem, err := syscall.Mmap(fd, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
	if err != nil {
		syscall.Close(fd)
		return -1, nil, err
	}
	return fd, mem, nil
}

// mapServiceSMB maps the buffer the service sent. A memfd must be sealed
// against shrinking, as the SDK requires: a service truncating it later
// would make our writes fault (SIGBUS) inside the application.
func mapServiceSMB(fd int) ([]byte, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Size <= 0 || st.Size > maxSMB {
		return nil, fmt.Errorf("unusable size %d", st.Size)
	}
	seals, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), fGetSeals, 0)
	if errno == 0 && seals&sealShrink == 0 {
		return nil, errors.New("the service's memfd is not sealed against shrinking")
	}
	return syscall.Mmap(fd, 0, int(st.Size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}

// privateSMB is the buffer of shared-memory emulation: the same ABI in
// memory nobody else maps.
func privateSMB(size int) ([]byte, error) {
	if size <= 0 || size > maxSMB {
		return nil, fmt.Errorf("invalid buffer size %d", size)
	}
	return syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
}

func unmap(mem []byte) {
	if mem != nil {
		syscall.Munmap(mem)
	}
}
