/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test-ufile.c - the reader of files other users control (ufile.c) and the
 * ELF symbol reader on top of it (uelf.c): what is refused (FIFO, symlink,
 * device, directory, another owner, a writable directory on a trusted
 * path, "..", a file over the cap, another inode than the mapping's), a
 * file cut short while read, .gnu_debugdata read and an xz bomb in it
 * refused within the budget, a name whose demangling explodes.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <elf.h>

#include <cmocka.h>

#ifdef HAVE_LZMA
#include <lzma.h>
#endif

#include "sym/uelf.h"
#include "sym/ufile.h"
#include "sym/usym.h"

static char dir[64];

static void path_of(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

static void write_file(const char *name, const void *data, size_t len)
{
	char p[128];
	int fd;

	path_of(p, sizeof(p), name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test-ufile.XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static int open_in(const char *name, unsigned int flags, const struct ufile_want *w)
{
	char p[128];

	path_of(p, sizeof(p), name);
	return ufile_open_at("/proc", 0, p, flags, w, NULL);
}

/* what is not a regular file of the expected kind is never opened */
static void test_refusals(void **state)
{
	struct ufile_want w = { .max_size = 4 };
	struct ufile_stat st;
	char p[128], q[128];
	time_t t0 = time(NULL);
	int fd;

	(void)state;
	write_file("plain", "12345678", 8);
	/* a FIFO without a writer: refused at once, not waited on */
	path_of(p, sizeof(p), "fifo");
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(open_in("fifo", 0, NULL), -EINVAL);
	assert_true(time(NULL) - t0 < 5);
	/* a symlink, even to a good file */
	path_of(q, sizeof(q), "link");
	assert_int_equal(symlink("plain", q), 0);
	assert_int_equal(open_in("link", 0, NULL), -ELOOP);
	/* a symlinked directory on the way */
	path_of(q, sizeof(q), "dirlink");
	assert_int_equal(symlink(dir, q), 0);
	assert_int_equal(open_in("dirlink/plain", 0, NULL), -ELOOP);
	/* a device, a directory, ".." */
	assert_int_equal(ufile_open_at("/proc", 0, "/dev/null", 0, NULL, NULL), -EINVAL);
	assert_int_equal(ufile_open_at("/proc", 0, "/dev/zero", 0, NULL, NULL), -EINVAL);
	assert_int_equal(ufile_open_at("/proc", 0, dir, 0, NULL, NULL), -EINVAL);
	path_of(p, sizeof(p), "../x");
	assert_int_equal(ufile_open_at("/proc", 0, p, 0, NULL, NULL), -EPERM);
	/* over the cap */
	assert_int_equal(open_in("plain", 0, &w), -EFBIG);
	/* owned by another user */
	w.max_size = 0;
	w.uids[0] = 12345;
	w.nuids = 1;
	assert_int_equal(open_in("plain", UFILE_OWNER, &w), -EACCES);
	w.uids[1] = getuid();
	w.nuids = 2;
	fd = open_in("plain", UFILE_OWNER, &w);
	assert_true(fd >= 0);
	ufile_close(fd);
	/* the same through our own /proc/PID/root */
	path_of(p, sizeof(p), "plain");
	fd = ufile_open_at("/proc", (uint32_t)getpid(), p, 0, NULL, &st);
	assert_true(fd >= 0);
	assert_int_equal(st.size, 8);
	ufile_close(fd);
}

/* trusted paths: root's directories only root can write, root's links */
static void test_trusted(void **state)
{
	char tdir[64], p[128], q[128], cmd[160];
	int fd;

	(void)state;
	if (getuid() != 0)
		skip(); /* root-owned files */
	/* (not under /tmp, which everyone can write) */
	snprintf(tdir, sizeof(tdir), "/run/test-ufile.XXXXXX");
	assert_non_null(mkdtemp(tdir));
	snprintf(p, sizeof(p), "%s/dbg", tdir);
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
	chmod(tdir, 0755);
	fd = ufile_open_at("/proc", 0, p, UFILE_TRUSTED, NULL, NULL);
	assert_true(fd >= 0);
	ufile_close(fd);
	/* root's link in root's directory is followed */
	snprintf(q, sizeof(q), "%s/dbglink", tdir);
	assert_int_equal(symlink("dbg", q), 0);
	fd = ufile_open_at("/proc", 0, q, UFILE_TRUSTED, NULL, NULL);
	assert_true(fd >= 0);
	ufile_close(fd);
	/* another user's link is not */
	assert_int_equal(lchown(q, 65534, 65534), 0);
	assert_int_equal(ufile_open_at("/proc", 0, q, UFILE_TRUSTED, NULL, NULL), -ELOOP);
	/* a directory others can write, or a file another user owns */
	chmod(tdir, 0777);
	assert_int_equal(ufile_open_at("/proc", 0, p, UFILE_TRUSTED, NULL, NULL), -EACCES);
	chmod(tdir, 0755);
	assert_int_equal(chown(p, 65534, 65534), 0);
	assert_int_equal(ufile_open_at("/proc", 0, p, UFILE_TRUSTED, NULL, NULL), -EACCES);
	/* and anything under /tmp */
	path_of(p, sizeof(p), "plain");
	assert_int_equal(ufile_open_at("/proc", 0, p, UFILE_TRUSTED, NULL, NULL), -EACCES);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tdir);
	assert_int_equal(system(cmd), 0);
}

/* a mapping: the very file (even deleted), checked by inode */
static void test_mapped(void **state)
{
	struct ufile_want w = { 0 };
	struct ufile_stat st;
	struct stat sb;
	char p[128], buf[8];
	void *m;
	int fd, k;

	(void)state;
	/* /proc/PID/map_files/ opens for CAP_SYS_ADMIN only (stacktop runs as root) */
	if (getuid() != 0)
		skip();
	write_file("mapped", "ABCDEFGH", 8);
	path_of(p, sizeof(p), "mapped");
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &sb), 0);
	m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(m != MAP_FAILED);
	close(fd);
	w.dev = (uint64_t)major(sb.st_dev) << 32 | minor(sb.st_dev);
	w.ino = sb.st_ino;
	assert_false(ufile_fs_refused("/proc", (uint32_t)getpid(), w.dev));
	/* deleted, a FIFO put at its name: the mapping still gives the file */
	assert_int_equal(unlink(p), 0);
	assert_int_equal(mkfifo(p, 0644), 0);
	k = ufile_open_mapped("/proc", (uint32_t)getpid(), (uintptr_t)m, (uintptr_t)m + 4096, p, &w,
			      &st);
	assert_true(k >= 0);
	assert_int_equal(ufile_pread(k, buf, 8, 0), 0);
	assert_memory_equal(buf, "ABCDEFGH", 8);
	ufile_close(k);
	/* another inode than the mapping's: refused, and the FIFO not opened */
	w.ino++;
	assert_true(ufile_open_mapped("/proc", (uint32_t)getpid(), (uintptr_t)m,
				      (uintptr_t)m + 4096, p, &w, &st) < 0);
	munmap(m, 4096);
	/* a device number in no mount table, not a block device's: refused */
	assert_true(ufile_fs_refused("/proc", (uint32_t)getpid(), 0x12345));
	/* a memfd (runc runs from one): the kernel's own shmem mount, read */
	fd = memfd_create("test-ufile", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "memfd-ok", 8), 8);
	assert_int_equal(fstat(fd, &sb), 0);
	m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(m != MAP_FAILED);
	close(fd);
	w.dev = (uint64_t)major(sb.st_dev) << 32 | minor(sb.st_dev);
	w.ino = sb.st_ino;
	k = ufile_open_mapped("/proc", (uint32_t)getpid(), (uintptr_t)m, (uintptr_t)m + 4096, NULL,
			      &w, &st);
	assert_true(k >= 0);
	assert_int_equal(ufile_pread(k, buf, 8, 0), 0);
	assert_memory_equal(buf, "memfd-ok", 8);
	ufile_close(k);
	munmap(m, 4096);
}

/* a file cut short while it is read: -EIO, no SIGBUS */
static void test_truncated(void **state)
{
	struct uelf_src src = { .fd = -1 };
	struct uelf *e = NULL;
	char p[128], buf[64];
	int in, out, fd;
	ssize_t n;

	(void)state;
	/* a copy of this test program, a real ELF file with a .symtab */
	path_of(p, sizeof(p), "self");
	in = open("/proc/self/exe", O_RDONLY);
	out = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
	fd = open_in("self", 0, NULL);
	assert_true(fd >= 0);
	assert_int_equal(ufile_size(fd, &src.size), 0);
	src.fd = fd;
	assert_int_equal(uelf_load(&src, NULL, &e), 0);
	assert_true(e->nsyms > 0 && (e->from & UELF_SYMTAB));
	uelf_free(e);
	/* cut to its first kilobyte behind the reader's back */
	assert_int_equal(truncate(p, 1024), 0);
	assert_int_equal(ufile_pread(fd, buf, 16, src.size - 16), -EIO);
	assert_int_equal(uelf_load(&src, NULL, &e), -EIO);
	assert_null(e);
	ufile_close(fd);
}

#ifdef HAVE_LZMA
/* a minimal ELF64 file: sections null, .symtab (one function), .strtab, .shstrtab, [.gnu_debugdata]
 */
static size_t make_elf(uint8_t *out, size_t cap, const uint8_t *dd, size_t ddlen)
{
	static const char shstr[] = "\0.symtab\0.strtab\0.shstrtab\0.gnu_debugdata";
	static const char str[] = "\0inner_fn";
	Elf64_Ehdr eh = { 0 };
	Elf64_Shdr sh[5];
	Elf64_Sym sym[2];
	size_t off = sizeof(eh), nsh = dd ? 5 : 4;

	memset(sh, 0, sizeof(sh));
	memset(sym, 0, sizeof(sym));
	sym[1].st_name = 1;
	sym[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	sym[1].st_shndx = 1;
	sym[1].st_value = 0x1000;
	sym[1].st_size = 0x40;
	assert_true(cap > 4096 + ddlen);
	memcpy(out + off, sym, sizeof(sym));
	sh[1] = (Elf64_Shdr){ .sh_name = 1,
			      .sh_type = SHT_SYMTAB,
			      .sh_offset = off,
			      .sh_size = sizeof(sym),
			      .sh_link = 2,
			      .sh_entsize = sizeof(Elf64_Sym) };
	off += sizeof(sym);
	memcpy(out + off, str, sizeof(str));
	sh[2] = (Elf64_Shdr){
		.sh_name = 9, .sh_type = SHT_STRTAB, .sh_offset = off, .sh_size = sizeof(str)
	};
	off += sizeof(str);
	memcpy(out + off, shstr, sizeof(shstr));
	sh[3] = (Elf64_Shdr){
		.sh_name = 17, .sh_type = SHT_STRTAB, .sh_offset = off, .sh_size = sizeof(shstr)
	};
	off += sizeof(shstr);
	if (dd) {
		memcpy(out + off, dd, ddlen);
		sh[4] = (Elf64_Shdr){
			.sh_name = 27, .sh_type = SHT_PROGBITS, .sh_offset = off, .sh_size = ddlen
		};
		off += ddlen;
		sh[1].sh_type = SHT_NULL; /* the outer file has no .symtab: .gnu_debugdata's */
	}
	off = (off + 7) & ~(size_t)7;
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shoff = off;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = (Elf64_Half)nsh;
	eh.e_shstrndx = 3;
	memcpy(out, &eh, sizeof(eh));
	memcpy(out + off, sh, nsh * sizeof(Elf64_Shdr));
	return off + nsh * sizeof(Elf64_Shdr);
}

static size_t xz(const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
	size_t pos = 0;

	assert_int_equal(
		lzma_easy_buffer_encode(0, LZMA_CHECK_CRC64, NULL, in, len, out, &pos, cap),
		LZMA_OK);
	return pos;
}

static long max_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}
#endif

/* .gnu_debugdata: its symbols read; a bomb in it refused within the budget */
static void test_debugdata(void **state)
{
#ifdef HAVE_LZMA
	size_t cap = 1 << 20, n, z;
	uint8_t *inner = calloc(1, cap), *packed = calloc(1, cap), *outer = calloc(1, cap);
	uint8_t *zeros;
	struct uelf_opts o = { .budget = 4u << 20 };
	struct uelf_src src = { .fd = -1 };
	struct uelf *e = NULL;
	long rss;

	(void)state;
	assert_true(inner && packed && outer);
	n = make_elf(inner, cap, NULL, 0);
	z = xz(inner, n, packed, cap);
	src.mem = outer;
	src.size = make_elf(outer, cap, packed, z);
	assert_int_equal(uelf_load(&src, &o, &e), 0);
	assert_true(e->from & UELF_DEBUGDATA);
	assert_int_equal(e->nsyms, 1);
	assert_string_equal(e->names + e->syms[0].name, "inner_fn");
	uelf_free(e);
	/* 256 MiB of zeros packed in a few dozen KiB */
	zeros = mmap(NULL, 256u << 20, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(zeros != MAP_FAILED);
	z = xz(zeros, 256u << 20, packed, cap);
	munmap(zeros, 256u << 20);
	src.size = make_elf(outer, cap, packed, z);
	rss = max_rss_kib();
	assert_int_equal(uelf_load(&src, &o, &e), 0); /* the file, without those symbols */
	assert_false(e->from & UELF_DEBUGDATA);
	assert_int_equal(e->nsyms, 0);
	uelf_free(e);
	/* nothing near the 256 MiB it asked for was taken */
	assert_true(max_rss_kib() - rss < 16 * 1024);
	free(inner);
	free(packed);
	free(outer);
#else
	(void)state;
	skip();
#endif
}

/* a name whose every nesting level refers twice to the one before */
static void test_demangle_bomb(void **state)
{
	static const char bomb[] = "_Z1f1pI1aS_E"
				   "S0_IS1_S1_E"
				   "S0_IS2_S2_E"
				   "S0_IS3_S3_E"
				   "S0_IS4_S4_E"
				   "S0_IS5_S5_E"
				   "S0_IS6_S6_E"
				   "S0_IS7_S7_E"
				   "S0_IS8_S8_E"
				   "S0_IS9_S9_E"
				   "S0_ISA_SA_E"
				   "S0_ISB_SB_E"
				   "S0_ISC_SC_E"
				   "S0_ISD_SD_E"
				   "S0_ISE_SE_E"
				   "S0_ISF_SF_E"
				   "S0_ISG_SG_E"
				   "S0_ISH_SH_E"
				   "S0_ISI_SI_E"
				   "S0_ISJ_SJ_E"
				   "S0_ISK_SK_E"
				   "S0_ISL_SL_E"
				   "S0_ISM_SM_E";
	char *d, *big;
	bool refused;

	(void)state;
#ifdef HAVE_LIBIBERTY
	/* three levels fit */
	d = usym_demangle_bounded("_Z1f1pI1aS_ES0_IS1_S1_E", &refused);
	assert_false(refused);
	assert_string_equal(d, "f(p<a, p>, a<p<a, p>, p<a, p> >)");
	free(d);
#endif
	/* 23 levels: 109 MB; refused, shown as it is */
	d = usym_demangle_bounded(bomb, &refused);
#ifdef HAVE_LIBIBERTY
	assert_true(refused);
#endif
	assert_string_equal(d, bomb);
	free(d);
	/* a mangled name too long to demangle on the stack */
	big = malloc(70000);
	assert_non_null(big);
	memset(big, 'x', 69999);
	memcpy(big, "_Z1f", 4);
	big[69999] = '\0';
	d = usym_demangle_bounded(big, &refused);
	assert_true(refused);
	assert_string_equal(d, big);
	free(d);
	free(big);
}

/* the fields of /proc/PID/stat after its comm: its ppid and session */
static void proc_ids(pid_t pid, long *ppid, long *sid)
{
	char p[64], buf[512], *c;
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	f = fopen(p, "re");
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	c = strrchr(buf, ')');
	assert_non_null(c);
	assert_int_equal(sscanf(c + 2, "%*c %ld %*d %ld", ppid, sid), 2);
}

/* gone (or a zombie) within 2 s */
static bool gone_within(pid_t pid)
{
	int i;

	for (i = 0; i < 200; i++) {
		char p[64], buf[512], *c;
		FILE *f;
		size_t n;

		snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
		f = fopen(p, "re");
		if (!f)
			return true;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		c = strrchr(buf, ')');
		if (c && c[2] == 'Z')
			return true;
		usleep(10000);
	}
	return false;
}

/* the reader: not our child, a session of its own, /dev/null and its socket */
static void test_reader_process(void **state)
{
	struct ufile_reader_stats rs;
	char p[128], link[256];
	long ppid, sid;
	int fd, i, sockets = 0, files = 0;

	(void)state;
	write_file("plain", "12345678", 8);
	fd = open_in("plain", 0, NULL);
	assert_true(fd >= 0);
	ufile_reader_stats(&rs);
	assert_true(rs.pid > 0 && rs.readers >= 1);
	proc_ids(rs.pid, &ppid, &sid);
	assert_true(ppid != getpid());
	assert_true(sid != getsid(0) && sid != getpid());
	for (i = 0; i < 64; i++) {
		ssize_t n;

		snprintf(p, sizeof(p), "/proc/%d/fd/%d", (int)rs.pid, i);
		n = readlink(p, link, sizeof(link) - 1);
		if (n < 0)
			continue;
		link[n] = '\0';
		if (i <= 2)
			assert_string_equal(link, "/dev/null");
		else if (!strncmp(link, "socket:", 7))
			sockets++;
		else
			files++;
	}
	assert_int_equal(sockets, 1);
	assert_int_equal(files, 1); /* "plain", open in the reader */
	ufile_close(fd);
}

/* a large file read through the reader: every chunk, in order */
static void test_reader_big(void **state)
{
	size_t len = 3 * (64u << 10) + 123, i;
	uint8_t *data = malloc(len), *got;
	uint64_t size;
	int fd;

	(void)state;
	assert_non_null(data);
	for (i = 0; i < len; i++)
		data[i] = (uint8_t)(i * 7 + i / 251);
	write_file("big", data, len);
	fd = open_in("big", 0, NULL);
	assert_true(fd >= 0);
	assert_int_equal(ufile_size(fd, &size), 0);
	assert_int_equal(size, len);
	got = ufile_read(fd, 0, len);
	assert_non_null(got);
	assert_memory_equal(got, data, len);
	free(got);
	got = ufile_read(fd, 65530, 20);
	assert_non_null(got);
	assert_memory_equal(got, data + 65530, 20);
	free(got);
	/* past the end: cut short */
	assert_null(ufile_read(fd, len - 10, 20));
	ufile_close(fd);
	free(data);
}

/* a reader that died: the next request starts another, the handle reopened */
static void test_reader_died(void **state)
{
	struct ufile_reader_stats a, b;
	char buf[8];
	int fd;

	(void)state;
	write_file("plain", "12345678", 8);
	fd = open_in("plain", 0, NULL);
	assert_true(fd >= 0);
	ufile_reader_stats(&a);
	assert_int_equal(kill(a.pid, SIGKILL), 0);
	assert_true(gone_within(a.pid));
	assert_int_equal(ufile_pread(fd, buf, 8, 0), 0);
	assert_memory_equal(buf, "12345678", 8);
	ufile_reader_stats(&b);
	assert_true(b.pid > 0 && b.pid != a.pid);
	assert_int_equal(b.readers, a.readers + 1);
	assert_int_equal(b.stalls, a.stalls);
	ufile_close(fd);
}

/* @fd's read with the reader stopped: abandoned at the deadline; the time taken */
static long stalled_read(int fd, int want)
{
	struct ufile_reader_stats a, b;
	struct timespec t0, t1;
	char buf[8];

	ufile_reader_stats(&a);
	assert_true(a.pid > 0);
	assert_int_equal(kill(a.pid, SIGSTOP), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(ufile_pread(fd, buf, 8, 0), want);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ufile_reader_stats(&b);
	assert_int_equal(b.stalls, a.stalls + 1);
	assert_int_equal(b.pid, 0);
	/* killed though stopped */
	assert_true(gone_within(a.pid));
	return (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
}

/*
 * A reader that does not answer (stopped: what a FUSE daemon that never
 * answers does to it): the request fails at the deadline, the device is not
 * asked again, and after UFILE_STALLS_MAX stalls no file is read at all
 */
static void test_reader_stall(void **state)
{
	struct ufile_reader_stats rs;
	struct timespec t0, t1;
	char buf[8], shm[64];
	long ms;
	int fd, fd2, r;

	(void)state;
	ufile_reader_set_deadline(200);
	write_file("plain", "12345678", 8);
	fd = open_in("plain", 0, NULL);
	assert_true(fd >= 0);
	ms = stalled_read(fd, -ETIMEDOUT);
	assert_true(ms >= 190 && ms < 2000);
	/* its device (known to the handle): refused at once from now on */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(ufile_pread(fd, buf, 8, 0), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 < 150);
	ufile_close(fd);
	/* a file on another device is read (by a new reader) */
	snprintf(shm, sizeof(shm), "/dev/shm/test-ufile.%d", (int)getpid());
	r = open(shm, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(r >= 0);
	assert_int_equal(write(r, "abcdefgh", 8), 8);
	close(r);
	fd2 = ufile_open_at("/proc", 0, shm, 0, NULL, NULL);
	assert_true(fd2 >= 0);
	assert_int_equal(ufile_pread(fd2, buf, 8, 0), 0);
	assert_memory_equal(buf, "abcdefgh", 8);
	/* the second stall: nothing is read any more, at once */
	stalled_read(fd2, -ETIMEDOUT);
	ufile_reader_stats(&rs);
	assert_true(rs.gave_up);
	assert_int_equal(rs.stalls, UFILE_STALLS_MAX);
	assert_int_equal(ufile_open_at("/proc", 0, "/etc/passwd", 0, NULL, NULL), -ETIMEDOUT);
	ufile_close(fd2);
	unlink(shm);
	ufile_reader_set_deadline(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refusals),  cmocka_unit_test(test_trusted),
		cmocka_unit_test(test_mapped),	  cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_debugdata), cmocka_unit_test(test_demangle_bomb),
	};
	/* the same through a reader process, then the reader itself (its stalls last) */
	const struct CMUnitTest reader[] = {
		cmocka_unit_test(test_reader_process),
		cmocka_unit_test(test_reader_big),
		cmocka_unit_test(test_reader_died),
		cmocka_unit_test(test_reader_stall),
	};
	int r = cmocka_run_group_tests_name("in-process", tests, setup, teardown);

	if (getuid() != 0) {
		printf("(not root: the reader's tests need /proc/PID/map_files of this process)\n");
		return r;
	}
	assert_int_equal(ufile_reader_start(NULL), 0);
	r |= cmocka_run_group_tests_name("reader", tests, setup, teardown);
	r |= cmocka_run_group_tests_name("reader-process", reader, setup, teardown);
	return r;
}
