package fakeservice

const sysMemfdCreate = 319 // linux/amd64
