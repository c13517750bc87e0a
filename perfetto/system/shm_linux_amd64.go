package system

const sysMemfdCreate = 319 // memfd_create on linux/amd64 (absent from package syscall)
