# Sourced by the build scripts. A GOARCH other than the host's (GOARCH=arm64
# on x86-64) builds with cgo through Debian's cross gcc (gcc-aarch64-linux-gnu,
# which scripts/setup.sh installs): Go turns cgo off for cross builds unless
# told.
goarch=$(go env GOARCH)
if [ "$goarch" != "$(go env GOHOSTARCH)" ]; then
	case $goarch in
	arm64) export CC="${CC:-aarch64-linux-gnu-gcc}" ;;
	amd64) export CC="${CC:-x86_64-linux-gnu-gcc}" ;;
	*)
		echo "no cross C compiler known for GOARCH=$goarch: set CC" >&2
		[ -n "${CC:-}" ] || exit 1
		;;
	esac
	export CGO_ENABLED=1
fi
