#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# run-fuzz.sh - the libFuzzer harnesses of tests/fuzz/meson.build, run.
#
#   run-fuzz.sh harness NAME BINARY
#       seed a corpus for harness NAME and run BINARY (fuzz-NAME, built by
#       meson with clang) for FUZZ_SECONDS (default 20): what each test
#       fuzz-NAME of a clang build runs.
#   run-fuzz.sh clang-build DIR
#       a gcc build's 'fuzz' test: set up (or reuse) a clang build of this
#       tree in DIR, build its fuzz-* targets only (their list is meson's:
#       meson introspect) and run its fuzz suite, one harness at a time.
#   run-fuzz.sh [SECONDS]
#       the same from a checkout, in ${TMPDIR:-/tmp}/stacktop-fuzz-build.
#
# Exit status: 0 when no fuzzer crashed, 1 on a crash, leak, timeout or
# build failure, 77 (skip, said why) when clang or its fuzzer runtime is
# missing, or when FUZZ_ONLY (space-separated harness names) leaves NAME
# out. FUZZ_WORKDIR: where corpora and artifacts go (default a new
# directory under /tmp, removed after a clean run and kept after a
# failure so that crash artifacts can be inspected).

set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

selected() {
	[ -z "${FUZZ_ONLY:-}" ] && return 0
	case " $FUZZ_ONLY " in *" $1 "*) return 0 ;; esac
	return 1
}

# --- seeds -------------------------------------------------------------

le32() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 & 255)) $((($1 >> 8) & 255)) $((($1 >> 16) & 255)) $((($1 >> 24) & 255)); }
be32() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $((($1 >> 24) & 255)) $((($1 >> 16) & 255)) $((($1 >> 8) & 255)) $(($1 & 255)); }
le64() { le32 $(($1 & 0xffffffff)); le32 $((($1 >> 32) & 0xffffffff)); }
be64() { be32 $((($1 >> 32) & 0xffffffff)); be32 $(($1 & 0xffffffff)); }
emit() { printf "$2" >"$1"; }

seed_stackmap_bin() {
	local d=$1 e
	for e in le be; do
		local w32=${e}32 w64=${e}64
		emit "$d/v4-$e" "$($w32 0x46534D42)$($w32 1)$($w32 2)$($w32 0)$($w32 42)$($w32 2)$($w32 1337)$($w32 0)$($w64 0xffffffff81234567)$($w64 0xffffffff81000010)$($w32 4025)$($w32 1)$($w32 29)$($w32 0)$($w64 0x7fffffff)"
		emit "$d/old-$e" "$($w32 0x464D5342)$($w32 2)$($w32 1)$($w32 0)$($w32 7)$($w32 1)$($w32 3)$($w32 0)$($w64 0xffffffffc0a01234)"
		emit "$d/short-$e" "$($w32 0x46534D42)$($w32 1)$($w32 5)$($w32 0)$($w32 1)$($w32 3)$($w32 1)$($w32 0)$($w64 1)"
	done
}

seed_stackmap_text() {
	local d=$1
	printf 'stack_id 42 [ref 1337, depth 2]\n  [0] schedule+0x48/0xc0\n  [1] schedule_timeout+0x1c/0x30\n\n' >"$d/doc"
	printf 'stack_id 1 [ref 2, depth 3]\n  [0] nvme_queue_rq+0x1a2/0x7f0 [nvme]\n  [1] 0xffffffffc0123456\n  [2] [FTRACE TRAMPOLINE]\n\nstack_id 2 [ref 1, depth 9]\n  [0] a+0x1/0x2' >"$d/mixed"
}

seed_stackmap_stat() {
	local d=$1
	printf 'entries:    2500 / 16384\ntable_size: 32768\nhits:       148923\ndrops:      0\nhit_rate:   100%%\n' >"$d/v1"
	printf 'entries:      22 / 16384\ntable_size:   32768\nsuccesses:    469\ndrops:        0\nsuccess_rate: 100%%\n' >"$d/v2"
	printf 'entries:      0 / 16384\ntable_size:   32768\nsuccesses:    0\ndrops:        0\n' >"$d/empty"
	printf 'stackmap not initialized\n' >"$d/noinit"
}

seed_ksym() {
	local d=$1
	cp "$root/tests/fixtures/ksym/kallsyms" "$d/fixture" 2>/dev/null
	printf '0000000000000000 T a\n0000000000000000 t b\t[m]\n' >"$d/zero"
	printf 'ffffffff81000000 T _text\nffffffff81000000 T startup_64\nffffffff81000100 t x\nffffffffc0a00000 t m_fn\t[\x1b[31mm]\n' >"$d/alias"
}

seed_ringbuf() {
	local d=$1
	# flag byte, then a page: u64 ts, long commit, events
	# ev1: type_len 3 (12 bytes: common_type 20, flags, pc, pid 1, stack_id 42)
	# ev2: time extend (type 30); ev3: type_len 0 + length 16; ev4: padding
	local ev="$(le32 $((3 | (5 << 5))))$(printf '\\x14\\x00\\x00\\x00')$(le32 1)$(le32 42)"
	ev+="$(le32 $((30 | (1 << 5))))$(le32 1)"
	ev+="$(le32 0)$(le32 16)$(le32 4)$(le32 0)$(le32 0)$(le32 0)"
	ev+="$(le32 29)$(le32 4)"
	local n=$((16 + 8 + 24 + 8))
	emit "$d/le64" "\\x01$(le64 1000)$(le64 $n)$ev"
	emit "$d/le32" "\\x00$(le64 1000)$(le32 $n)$ev"
	emit "$d/missed" "\\x01$(le64 1000)$(le64 $((n | (3 << 30))))$ev$(le64 7)"
	printf '\x80\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n' >"$d/header_page"
}

seed_format() {
	local d=$1
	printf '\x40\x20a\x1b[31mred\x1b[0m \xc3\xa9 \xe4\xb8\xad \xc2\x9b \xe2\x80\xae \xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80' >"$d/hostile"
	printf '\x08\x05\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97' >"$d/wide"
}

seed_ingest() {
	local d=$1
	printf '\x81eEkdeikeEEk\x03pe\x13im\x05ei\x05Ek(p' >"$d/script"
	printf '\x83meEi\x07kAemAi\x41pEkk' >"$d/script-defer"
	# a page the running kernel wrote (sched_switch + kernel_stack)
	{ printf '\x00'; cat "$root/tests/fixtures/ringbuf/live-cpu0.page"; } >"$d/live"
	{ printf '\x01'; cat "$root/tests/fixtures/ringbuf/live-cpu0.page"; } >"$d/live-stackmap"
	# the same page read through other field offsets (byte 0 bit 3)
	{ printf '\x08\xf0\x08\x10\x08\x00'; cat "$root/tests/fixtures/ringbuf/live-cpu0.page"; } >"$d/live-fmt"
	{ printf '\x48\xf0\x08\x10\x08\x00'; cat "$root/tests/fixtures/ringbuf/live-cpu0.page"; } >"$d/live-fmt-records"
	{ printf '\x40'; cat "$root/tests/fixtures/ringbuf/live-cpu0.page"; } >"$d/live-records"
	{ printf '\x88\x04\xff\xc8\xfc\x01eEkdeikeEEk\x03pe\x13im\x05ei\x05Ek(p'; } >"$d/script-fmt"
}

seed_snapshot() {
	local d=$1
	printf '%s\n' '{"schema":"stacktop-snapshot","version":2,"stacktop":"0.1.0","timestamp":1.0,"time":"1970-01-01T00:00:01.000Z","host":"h","kernel":null,"source":"/sys/kernel/tracing","iteration":1,"mode":"stacks","interval":1.0,"events":["sched:sched_switch"],"traced":"sched:sched_switch","origins":["a","b"],"view":{"sort":"hits","ascending":false,"counts":"delta","event":"sched:sched_switch","pid":null,"cpu":0,"filter":"x","hide_idle":false,"top":0},"hits":3,"hits_delta":3,"unique":1,"matched":1,"matched_total":3,"matched_delta":3,"lost":0,"overrun":0,"dropped":0,"orphans":0,"bad_pages":0,"fallbacks":0,"unresolved":0,"generation":0,"tracing_on":true,"stackmap_on":false,"stacks":[{"key":"0123456789abcdef","total":3,"delta":3,"depth":2,"ids":[7,8,9],"more_ids":false,"fallback":false,"mapped":true,"merged64":false,"cut":false,"frames":["0xffffffff81000010","0xffffffffc0000000"],"symbols":["f+0x10/0x100","g+0x0/0x10 [m]"],"by":[{"event":"sched:sched_switch","cpu":0,"pid":-1,"comm":"?","origin":1,"total":3,"delta":3}]}]}' >"$d/two-origins"
	printf '{"a":1}\n{"schema":"stacktop-snapshot","version":3}\n' >"$d/lines"
	printf '%s\n' '{"stacks":[{"key":"0123456789abcdef","total":3,"delta":1,"ids":[],"frames":["0x10"],"symbols":["f+0x0/0x4"],"tgid":7,"user_frames":[{"addr":"0x401000","symbol":"main+0x10 (a\u00e9)"}],"user_cut":true,"by":[]}],"schema":"stacktop-snapshot","version":2,"mode":"stacks","events":[],"view":{"sort":"hits","counts":"delta","top":0},"hits":3,"hits_delta":1,"lost":0,"overrun":0,"dropped":0,"orphans":0,"bad_pages":0,"fallbacks":0,"unresolved":0}' >"$d/user"
	printf '%s\n' '{"schema":"stacktop-snapshot","version":2,"mode":"stacks","events":["sched:sched_switch"],"weight":{"name":"off-CPU","unit":"nanoseconds","ranked":true,"total":5,"delta":2,"hist_scale":"time"},"view":{"sort":"hits","counts":"delta","top":0},"hits":5,"hits_delta":2,"lost":0,"overrun":0,"dropped":0,"orphans":0,"bad_pages":0,"fallbacks":0,"unresolved":0,"stacks":[{"key":"0000000000000001","total":5,"delta":2,"hits":5,"hits_delta":2,"weight":5,"weight_delta":2,"ids":[],"frames":["0x10"],"symbols":["f+0x0/0x4"],"by":[],"trend":[1,0,2,2],"trend_weight":[1,0,2,2],"hist":[{"low":128000000,"high":256000000,"count":5},{"low":65536000000000,"high":null,"count":1}]}]}' >"$d/hist"
}

seed_uelf() {
	local d=$1 f
	# real ELF files: a small program, a library, a 32-bit-free shared object
	for f in /usr/bin/true /usr/lib/x86_64-linux-gnu/libdl.so.2; do
		[ -f "$f" ] && { printf '\x01'; cat "$f"; } >"$d/${f##*/}"
	done
	printf '\x00\x7fELF\x02\x01\x01' >"$d/header-only"
}

seed_udwarf() {
	local d=$1 src
	# small files with DWARF (the runs read at most 16 KiB): an object file
	# with an inlined function, the same linked without the C library, and
	# a program with its DWARF compressed
	command -v gcc >/dev/null || return 0
	src="$d/inl.c"
	printf '%s\n' 'static inline __attribute__((always_inline)) int f(int x) { return x * 3 + 1; }' \
		'__attribute__((noinline)) int g(int x) { return f(x) ^ f(x + 1); }' \
		'void _start(void) { volatile int r = g(2); (void)r; for (;;); }' >"$src"
	gcc -O2 -g -c -o "$d/inl.o" "$src" 2>/dev/null
	gcc -O2 -g -nostdlib -static -o "$d/inl" "$src" 2>/dev/null
	gcc -O2 -g -gz=zlib -nostdlib -static -o "$d/inl-z" "$src" 2>/dev/null
	rm -f "$src"
	return 0
}

seed_cfi() {
	local d=$1
	# a gcc-like CIE at 0 and an FDE at 0x1c; the same FDE with the audit's
	# DW_OP_skip -3; with nested remember_state
	printf '\x1c\x00\x14\x00\x00\x00\x00\x00\x00\x00\x01zR\x00\x01\x78\x10\x01\x1b\x0c\x07\x08\x90\x01\x00\x00\x14\x00\x00\x00\x1c\x00\x00\x00\x00\x10\x00\x00\x20\x00\x00\x00\x00\x41\x0e\x10\x00' >"$d/gcc"
	printf '\x1c\x00\x14\x00\x00\x00\x00\x00\x00\x00\x01zR\x00\x01\x78\x10\x01\x1b\x0c\x07\x08\x90\x01\x00\x00\x14\x00\x00\x00\x1c\x00\x00\x00\x00\x10\x00\x00\x20\x00\x00\x00\x00\x0f\x03\x2f\xfd\xff' >"$d/loop"
	printf '\x1c\x00\x14\x00\x00\x00\x00\x00\x00\x00\x01zR\x00\x01\x78\x10\x01\x1b\x0c\x07\x08\x90\x01\x00\x00\x14\x00\x00\x00\x1c\x00\x00\x00\x00\x10\x00\x00\x20\x00\x00\x00\x00\x0a\x0a\x0a\x0b' >"$d/nest"
}

# --- one harness ----------------------------------------------------------

run_harness() {
	local h=$1 bin=$2 secs=${FUZZ_SECONDS:-20} work corpus dict rc execs
	selected "$h" || { echo "SKIP: fuzz-$h is not in FUZZ_ONLY ($FUZZ_ONLY)"; exit 77; }
	[ -x "$bin" ] || { echo "fuzz-$h: no binary $bin"; exit 1; }
	work=${FUZZ_WORKDIR:-$(mktemp -d "${TMPDIR:-/tmp}/stacktop-fuzz.XXXXXX")}
	corpus="$work/corpus-$h"
	mkdir -p "$corpus" "$work/artifacts"
	"seed_${h//-/_}" "$corpus"
	dict=()
	[ -f "$here/$h.dict" ] && dict=(-dict="$here/$h.dict")

	echo "fuzz-$h: running for ${secs}s"
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
		-error_exitcode=1 -timeout_exitcode=1 \
		-print_final_stats=1 -artifact_prefix="$work/artifacts/$h-" "${dict[@]}" \
		"$corpus" >"$work/$h.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$h.log" | tail -1)
	if [ $rc -ne 0 ]; then
		echo "fuzz-$h: FAILED (exit $rc), log $work/$h.log"
		grep -E -m 20 'ERROR|SUMMARY|runtime error|Test unit written|deadly signal' "$work/$h.log"
		echo "fuzz-$h: CRASH after ${execs:-?} executions (artifacts in $work/artifacts)"
		exit 1
	fi
	echo "fuzz-$h: ok, ${execs:-?} executions, 0 crashes, corpus $(ls "$corpus" | wc -l)"
	[ -z "${FUZZ_WORKDIR:-}" ] && rm -rf "$work"
	exit 0
}

# --- a clang build of the tree, its fuzz suite -----------------------------

clang_build() {
	local dir=$1 cc=${CC_FUZZ:-clang} probe targets rc
	if ! command -v "$cc" >/dev/null 2>&1; then
		echo "SKIP: $cc not found (scripts/deps.sh installs clang)"
		exit 77
	fi
	mkdir -p "$dir" || exit 1
	# can this clang link a fuzzer at all?
	probe="$dir/probe"
	printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }\n' >"$probe.c"
	if ! "$cc" -fsanitize=fuzzer "$probe.c" -o "$probe" 2>"$probe.log"; then
		echo "SKIP: $cc cannot build -fsanitize=fuzzer binaries:"
		cat "$probe.log"
		exit 77
	fi
	if [ ! -f "$dir/build/build.ninja" ]; then
		CC=$cc meson setup "$dir/build" "$root" -Dbuildtype=debug -Db_lto=false \
			-Db_sanitize=address,undefined -Db_lundef=false -Dwerror=false \
			>"$dir/setup.log" 2>&1 || { cat "$dir/setup.log"; echo "fuzz: meson setup with $cc failed"; exit 1; }
	fi
	# the harnesses, as meson lists them (a reconfigure first when it must)
	targets=$(meson introspect "$dir/build" --targets | python3 -c '
import json, os, sys
for t in json.load(sys.stdin):
    if t["name"].startswith("fuzz-") and t["type"] == "executable":
        print(os.path.relpath(t["filename"][0], sys.argv[1]))' "$dir/build") ||
		{ echo "fuzz: meson introspect failed"; exit 1; }
	[ -n "$targets" ] || { echo "fuzz: the clang build in $dir/build has no fuzz-* target"; exit 1; }
	# shellcheck disable=SC2086 # one path a word
	ninja -C "$dir/build" $targets >"$dir/build.log" 2>&1 || {
		tail -50 "$dir/build.log"
		echo "fuzz: building the harnesses with $cc failed (log $dir/build.log)"
		exit 1
	}
	rc=0
	meson test -C "$dir/build" --no-rebuild --suite fuzz --num-processes 1 --print-errorlogs || rc=$?
	sed -n 's/^fuzz-[a-z-]*: ok, .*/  &/p; s/^fuzz-[a-z-]*: CRASH.*/  &/p' \
		"$dir/build/meson-logs/testlog.txt" 2>/dev/null
	exit $rc
}

case "${1:-}" in
harness)
	run_harness "$2" "$3"
	;;
clang-build)
	clang_build "$2"
	;;
''|[0-9]*)
	[ -n "${1:-}" ] && export FUZZ_SECONDS=$1
	clang_build "${TMPDIR:-/tmp}/stacktop-fuzz-build"
	;;
*)
	echo "usage: $0 harness NAME BINARY | clang-build DIR | [SECONDS]" >&2
	exit 2
	;;
esac
