// SPDX-License-Identifier: MIT
/*
 * Test-only preload, ahead of ibsim's umad2sim in LD_PRELOAD: the parts
 * of the kernel's MAD layer that umad2sim lacks.
 *
 * Send timeouts.  umad2sim ignores a request's timeout_ms and retries,
 * so a request nobody answers is waited on for ever; on hardware the
 * kernel hands it back with status ETIMEDOUT.  An OpenSM that has not
 * yet found its own port drops the SMInfo Get of another SM's sweep, and
 * that sweep then never ends.  Here an unanswered request comes back the
 * same way, after its timeout times its tries, but never sooner than
 * TMO_MIN_MS: a loaded test machine must not see timeouts hardware would
 * not.
 *
 * RMPP for SA answers.  umad2sim copies one MAD per write and
 * hands one MAD per read, so an SA GetTable answer (one multi-MAD write
 * by OpenSM, which leaves segmentation to the kernel) reaches the client
 * cut at its first MAD.  Here such a write becomes RMPP DATA segments and
 * the client's reads put them back into one message, as the kernel's MAD
 * layer does on hardware: ENOSPC and the needed length for a short
 * buffer, the message kept for the next read.  ibsim loses nothing, so
 * there are no ACKs, windows or retries.  umad2sim hands on only the
 * first SIM_MAD bytes of a MAD (its receive buffer is one struct
 * sim_request, umad header included), so a segment here carries
 * SEG_DATA bytes, not the IBA's 200: both ends are this file's.
 *
 * Compact segments: ibsim forwarding every segment is the dearest part
 * of a big GetTable under test, so after the first a segment may leave
 * out the SA header (the kernel hands on the first's only) and carry
 * SEG_MORE bytes, a ninth fewer MADs.  A client of this file asks for
 * them by marking its SA requests (ASK_MARK in the SA header's reserved
 * bytes, cleared before the SA reads the request) unless
 * RMPPSIM_COMPACT=0; the segments of such an answer carry VER_COMPACT as
 * their RMPP version.  What the reader gets is the same either way.
 * RMPPSIM_STATS=FILE: at exit, one line of how many answers were put
 * together from how many segments (and how many full ones they took).
 *
 * Lost SMPs, for the tests: RMPPSIM_DROP_SMP=N drops every Nth LFT or
 * SL2VL Get by directed route the process sends, N+ every one from the
 * Nth on; a dropped request times out as an unanswered one does.
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "topology/monotime.h"

/* umad2sim's umad file descriptors (its issm ones start at the end). */
#define SIM_FD_MIN 1024
#define SIM_FD_END 2048

#define HS sizeof(struct ib_user_mad)
#define MAD_SIZE 256
#define CLASS_SA 0x03
/* RMPP header at 24: version, type, time and flags, status, segment, length */
#define R_VER 24
#define R_TYPE 25
#define R_FLAGS 26
#define R_STATUS 27
#define R_SEG 28
#define R_LEN 32
#define R_HDR_END 36
#define SA_HDR 56		/* repeated in every segment */
#define SIM_MAD 224
#define SEG_DATA (SIM_MAD - SA_HDR)
#define SEG_MORE (SIM_MAD - R_HDR_END)
#define SA_RESV 46		/* the SA header's reserved 16 bits */
#define ASK_MARK 0x5253
#define VER_COMPACT 0x81
#define NASK 64			/* marked requests remembered, per process */
#define IBA_DATA (MAD_SIZE - SA_HDR)
/* the SA header bytes after the RMPP one count in the payload length */
#define PAY_EXTRA (SA_HDR - R_HDR_END)

#define RMPP_DATA 1
#define F_ACTIVE 0x01
#define F_FIRST 0x02
#define F_LAST 0x04
#define F_MASK 0x07

#define NMSG 32

/* requests waiting for an answer, per process */
#define NPEND 256
#define TMO_MIN_MS 3000
#define WAKE_MS 200
#define M_METHOD 3
#define M_RESPONSE 0x80
#define M_CLASS 1
#define M_ATTR 16
#define CLASS_DR_SMP 0x81
#define ATTR_SL2VL 0x0017
#define ATTR_LFT 0x0019

/* One answer being put together, or done and waiting for a read. */
struct msg {
	int fd;			/* -1: free */
	uint64_t trid;
	uint8_t *buf;		/* umad header, SA header, data */
	size_t len, cap;
	uint32_t next;		/* segment expected */
	bool done;
};

/* A request sent and not answered yet: handed back when it times out. */
struct pend {
	int fd;			/* -1: free */
	uint32_t tid;		/* the TID's low half: umad2sim, like the
				 * kernel, puts the agent in the high one */
	int64_t due_ms;
	size_t len;
	uint8_t pkt[HS + MAD_SIZE];
};

static ssize_t (*next_read)(int, void *, size_t);
static ssize_t (*next_write)(int, const void *, size_t);
static int (*next_poll)(struct pollfd *, nfds_t, int);
static struct msg msgs[NMSG];
static struct pend pends[NPEND];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned long drop_n;	/* RMPPSIM_DROP_SMP's N, 0 for none */
static bool drop_on;		/* its +: every one from the Nth */
static unsigned long drop_seen;
static bool compact_off;	/* RMPPSIM_COMPACT=0: do not ask */
static uint64_t asked[NASK];	/* TIDs of marked requests read, a ring */
static unsigned int nasked;
static unsigned long st_msgs, st_segs, st_full;

static void init(void)
{
	size_t i;

	next_read = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	next_write = (ssize_t (*)(int, const void *, size_t))
		dlsym(RTLD_NEXT, "write");
	next_poll = (int (*)(struct pollfd *, nfds_t, int))
		dlsym(RTLD_NEXT, "poll");
	for (i = 0; i < NMSG; i++)
		msgs[i].fd = -1;
	for (i = 0; i < NPEND; i++)
		pends[i].fd = -1;
	if (getenv("RMPPSIM_DROP_SMP")) {
		char *end;

		drop_n = strtoul(getenv("RMPPSIM_DROP_SMP"), &end, 10);
		drop_on = *end == '+';
	}
	compact_off = getenv("RMPPSIM_COMPACT") &&
		      !strcmp(getenv("RMPPSIM_COMPACT"), "0");
}

/* RMPPSIM_STATS: the counts of the answers this process put together. */
__attribute__((destructor))
static void stats(void)
{
	const char *path = getenv("RMPPSIM_STATS");
	FILE *f = path ? fopen(path, "a") : NULL;

	if (!f)
		return;
	fprintf(f, "rmppsim: %lu answers in %lu segments (%lu full ones)\n",
		st_msgs, st_segs, st_full);
	fclose(f);
}

/* Whether to lose this request: an LFT or SL2VL Get by directed route. */
static bool dropped(const uint8_t *buf, size_t count)
{
	const uint8_t *mad = buf + HS;
	unsigned int attr;
	bool drop;

	if (!drop_n || count < HS + 24 || mad[M_CLASS] != CLASS_DR_SMP ||
	    (mad[M_METHOD] & M_RESPONSE))
		return false;
	attr = (unsigned int)mad[M_ATTR] << 8 | mad[M_ATTR + 1];
	if (attr != ATTR_LFT && attr != ATTR_SL2VL)
		return false;
	pthread_mutex_lock(&lock);
	drop_seen++;
	drop = drop_on ? drop_seen >= drop_n : drop_seen % drop_n == 0;
	pthread_mutex_unlock(&lock);
	return drop;
}

static bool sim_fd(int fd)
{
	return fd >= SIM_FD_MIN && fd < SIM_FD_END;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint64_t trid_of(const uint8_t *mad)
{
	return (uint64_t)get32(mad + 8) << 32 | get32(mad + 12);
}

static bool rmpp_active(const uint8_t *mad)
{
	return mad[1] == CLASS_SA && (mad[R_FLAGS] & F_ACTIVE);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static bool sa_request(const uint8_t *buf, size_t count)
{
	return count >= HS + SA_HDR && buf[HS + M_CLASS] == CLASS_SA &&
	       !(buf[HS + M_METHOD] & M_RESPONSE) &&
	       !(buf[HS + R_FLAGS] & F_ACTIVE);
}

/* A request read: remember its TID when marked, and unmark it. */
static void note_ask(uint8_t *pkt, size_t n)
{
	if (!sa_request(pkt, n) || get16(pkt + HS + SA_RESV) != ASK_MARK)
		return;
	pkt[HS + SA_RESV] = pkt[HS + SA_RESV + 1] = 0;
	asked[nasked++ % NASK] = trid_of(pkt + HS);
}

/* Whether the request answered with TID trid asked for compact segments. */
static bool was_asked(uint64_t trid)
{
	bool yes = false;
	unsigned int i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < NASK && !yes; i++)
		if (asked[i] == trid && trid) {
			asked[i] = 0;
			yes = true;
		}
	pthread_mutex_unlock(&lock);
	return yes;
}

/* Segments for data bytes: after the first, compact ones hold more. */
static uint32_t nseg_of(size_t data, bool compact)
{
	size_t more = compact ? SEG_MORE : SEG_DATA;

	if (data <= SEG_DATA)
		return 1;
	return 1 + (data - SEG_DATA + more - 1) / more;
}

/* One RMPP SA write as DATA segments of one MAD each, at least one. */
static ssize_t split(int fd, const uint8_t *buf, size_t count)
{
	size_t data = count - HS - SA_HDR, off = 0, n, hdr = SA_HDR;
	uint8_t seg[HS + MAD_SIZE], *mad = seg + HS;
	bool compact = was_asked(trid_of(buf + HS));
	uint32_t i, nseg = nseg_of(data, compact);
	ssize_t ret;

	for (i = 1; i <= nseg; i++, off += n) {
		if (i > 1 && compact)
			hdr = R_HDR_END;
		n = data - off < SIM_MAD - hdr ? data - off : SIM_MAD - hdr;
		memset(seg, 0, sizeof(seg));
		memcpy(seg, buf, HS + hdr);
		mad[R_VER] = compact ? VER_COMPACT : 1;
		mad[R_TYPE] = RMPP_DATA;
		mad[R_FLAGS] = (buf[HS + R_FLAGS] & ~F_MASK) | F_ACTIVE |
			       (i == 1 ? F_FIRST : 0) | (i == nseg ? F_LAST : 0);
		mad[R_STATUS] = 0;
		put32(mad + R_SEG, i);
		/* as Linux sends it: the first counts the tail once a segment */
		put32(mad + R_LEN, i == nseg ? n + PAY_EXTRA :
				   i == 1 ? data + nseg * PAY_EXTRA : 0);
		memcpy(mad + hdr, buf + HS + SA_HDR + off, n);
		ret = next_write(fd, seg, sizeof(seg));
		if (ret < 0)
			return ret;
	}
	return count;
}

/*
 * A request the sender waits on (a timeout given, the response bit
 * clear), kept until its answer is read: kept before it is written, so
 * that an answer read at once finds it.  Full table: not kept, as
 * without this shim.  Returns what was kept, or NULL.
 */
static struct pend *sending(int fd, const uint8_t *buf, size_t count)
{
	const struct ib_user_mad *u = (const struct ib_user_mad *)buf;
	int64_t wait;
	size_t i;

	if (count < HS + 24 || !u->timeout_ms ||
	    (buf[HS + M_METHOD] & M_RESPONSE))
		return NULL;
	wait = (int64_t)u->timeout_ms * (u->retries + 1);
	pthread_mutex_lock(&lock);
	for (i = 0; i < NPEND && pends[i].fd != -1; i++)
		;
	if (i < NPEND) {
		pends[i].fd = fd;
		pends[i].tid = get32(buf + HS + 12);
		pends[i].due_ms = mono_ms() +
				  (wait > TMO_MIN_MS ? wait : TMO_MIN_MS);
		pends[i].len = count < sizeof(pends[i].pkt) ?
			       count : sizeof(pends[i].pkt);
		memcpy(pends[i].pkt, buf, pends[i].len);
	}
	pthread_mutex_unlock(&lock);
	return i < NPEND ? &pends[i] : NULL;
}

ssize_t write(int fd, const void *buf, size_t count)
{
	uint8_t ask[HS + MAD_SIZE];
	struct pend *p;
	ssize_t n;

	pthread_once(&once, init);
	if (!sim_fd(fd))
		return next_write(fd, buf, count);
	if (count >= HS + SA_HDR && rmpp_active((const uint8_t *)buf + HS))
		return split(fd, buf, count);
	if (!compact_off && sa_request(buf, count) && count <= sizeof(ask)) {
		memcpy(ask, buf, count);
		ask[HS + SA_RESV] = ASK_MARK >> 8;
		ask[HS + SA_RESV + 1] = ASK_MARK & 0xff;
		buf = ask;
	}
	p = sending(fd, buf, count);
	if (dropped(buf, count))
		return count;
	n = next_write(fd, buf, count);
	if (n < 0 && p) {
		pthread_mutex_lock(&lock);
		p->fd = -1;
		pthread_mutex_unlock(&lock);
	}
	return n;
}

/* An answer read: its request is no longer waited on. */
static void answered(int fd, const uint8_t *pkt, size_t n)
{
	uint32_t tid;
	size_t i;

	if (n < HS + 24 || !(pkt[HS + M_METHOD] & M_RESPONSE))
		return;
	tid = get32(pkt + HS + 12);
	for (i = 0; i < NPEND; i++)
		if (pends[i].fd == fd && pends[i].tid == tid)
			pends[i].fd = -1;
}

/* fd's request that falls due first, or NULL. */
static struct pend *first_due(int fd)
{
	struct pend *p = NULL;
	size_t i;

	for (i = 0; i < NPEND; i++)
		if (pends[i].fd == fd && (!p || pends[i].due_ms < p->due_ms))
			p = &pends[i];
	return p;
}

/* The request back to its sender with ETIMEDOUT, as the kernel does. */
static ssize_t timed_out(struct pend *p, void *buf, size_t count)
{
	size_t n = p->len < count ? p->len : count;

	((struct ib_user_mad *)p->pkt)->status = ETIMEDOUT;
	memcpy(buf, p->pkt, n);
	p->fd = -1;
	return n;
}

static struct msg *find(int fd, uint64_t trid)
{
	size_t i;

	for (i = 0; i < NMSG; i++)
		if (msgs[i].fd == fd && msgs[i].trid == trid)
			return &msgs[i];
	return NULL;
}

/* A message of fd whole (done) or begun (!done). */
static struct msg *msg_of(int fd, bool done)
{
	size_t i;

	for (i = 0; i < NMSG; i++)
		if (msgs[i].fd == fd && msgs[i].done == done)
			return &msgs[i];
	return NULL;
}

static void drop(struct msg *m)
{
	free(m->buf);
	memset(m, 0, sizeof(*m));
	m->fd = -1;
}

/* The first segment: a new message, at most its payload length long. */
static struct msg *start(int fd, const uint8_t *pkt)
{
	const uint8_t *mad = pkt + HS;
	uint32_t pay = get32(mad + R_LEN);
	struct msg *m = find(fd, trid_of(mad));
	size_t i;

	if (m)
		drop(m);
	for (i = 0; i < NMSG && msgs[i].fd != -1; i++)
		;
	if (i == NMSG || pay < PAY_EXTRA)
		return NULL;
	m = &msgs[i];
	m->cap = HS + SA_HDR + pay - PAY_EXTRA;
	m->buf = malloc(m->cap);
	if (!m->buf)
		return NULL;
	m->fd = fd;
	m->trid = trid_of(mad);
	m->next = 1;
	memcpy(m->buf, pkt, HS + SA_HDR);
	m->len = HS + SA_HDR;
	return m;
}

/* Add one segment; true once the message is whole. */
static bool add(int fd, const uint8_t *pkt)
{
	const uint8_t *mad = pkt + HS;
	bool first = mad[R_FLAGS] & F_FIRST;
	size_t hdr = first || mad[R_VER] != VER_COMPACT ? SA_HDR : R_HDR_END;
	struct msg *m;
	size_t n, nseg;

	if (first)
		m = start(fd, pkt);
	else
		m = find(fd, trid_of(mad));
	if (!m || get32(mad + R_SEG) != m->next++) {
		if (m)
			drop(m);
		return false;
	}
	/* the last segment's payload length says how much of it is data */
	n = SIM_MAD - hdr;
	if ((mad[R_FLAGS] & F_LAST) && get32(mad + R_LEN) >= PAY_EXTRA &&
	    get32(mad + R_LEN) - PAY_EXTRA < n)
		n = get32(mad + R_LEN) - PAY_EXTRA;
	if (m->cap - m->len < n)
		n = m->cap - m->len;
	memcpy(m->buf + m->len, mad + hdr, n);
	m->len += n;
	if (!(mad[R_FLAGS] & F_LAST))
		return false;
	st_msgs++;
	st_segs += m->next - 1;
	st_full += nseg_of(m->len - HS - SA_HDR, false);
	/*
	 * The header the kernel hands on: its first segment's as Linux
	 * sends it in segments of the IBA's size, not SEG_DATA.
	 */
	n = m->len - HS - SA_HDR;
	nseg = n > IBA_DATA ? (n + IBA_DATA - 1) / IBA_DATA : 1;
	m->buf[HS + R_VER] = 1;
	m->buf[HS + R_FLAGS] = (m->buf[HS + R_FLAGS] & ~F_LAST) |
			       (nseg == 1 ? F_LAST : 0);
	put32(m->buf + HS + R_LEN, n + nseg * PAY_EXTRA);
	((struct ib_user_mad *)m->buf)->length = m->len;
	m->done = true;
	return true;
}

/* A whole message into the caller's buffer, or ENOSPC and its length. */
static ssize_t deliver(struct msg *m, void *buf, size_t count)
{
	ssize_t n = m->len;

	if (count < m->len) {
		if (count >= HS)
			memcpy(buf, m->buf, HS);
		errno = ENOSPC;
		return -1;
	}
	memcpy(buf, m->buf, m->len);
	drop(m);
	return n;
}

/* Wait for the rest of a message that has begun. */
static bool more(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return msg_of(fd, false) && next_poll(&p, 1, 5000) == 1;
}

static ssize_t sim_read(int fd, void *buf, size_t count)
{
	uint8_t pkt[HS + MAD_SIZE];
	struct msg *m = msg_of(fd, true);
	struct pend *p = first_due(fd);
	ssize_t n;

	if (m)
		return deliver(m, buf, count);
	if (p && p->due_ms <= mono_ms())
		return timed_out(p, buf, count);
	for (;;) {
		n = next_read(fd, pkt, sizeof(pkt));
		if (n < 0 && (n != -EWOULDBLOCK || !more(fd)))
			return n;
		if (n < 0)
			continue;
		answered(fd, pkt, n);
		note_ask(pkt, n);
		if ((size_t)n < HS + R_HDR_END || !rmpp_active(pkt + HS)) {
			if ((size_t)n > count)
				n = count;
			memcpy(buf, pkt, n);
			return n;
		}
		if (add(fd, pkt))
			return deliver(msg_of(fd, true), buf, count);
	}
}

ssize_t read(int fd, void *buf, size_t count)
{
	ssize_t n;

	pthread_once(&once, init);
	if (!sim_fd(fd))
		return next_read(fd, buf, count);
	pthread_mutex_lock(&lock);
	n = sim_read(fd, buf, count);
	pthread_mutex_unlock(&lock);
	return n;
}

/*
 * Ready: fds with a message kept after ENOSPC or a request past its
 * time; else the earliest time one falls due among fds, in *due.
 */
static int ready_now(struct pollfd *fds, nfds_t nfds, int64_t *due)
{
	int64_t now = mono_ms();
	struct pend *p;
	nfds_t i;
	int ready = 0;

	*due = -1;
	pthread_mutex_lock(&lock);
	for (i = 0; i < nfds; i++) {
		if (!sim_fd(fds[i].fd))
			continue;
		p = first_due(fds[i].fd);
		if (msg_of(fds[i].fd, true) || (p && p->due_ms <= now)) {
			fds[i].revents = POLLIN;
			ready++;
		} else if (p && (*due < 0 || p->due_ms < *due)) {
			*due = p->due_ms;
		}
	}
	pthread_mutex_unlock(&lock);
	return ready;
}

/*
 * umad2sim's poll, woken when a request of fds times out; it looks
 * again every WAKE_MS for requests another thread sent meanwhile.
 */
int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	int64_t end = timeout < 0 ? -1 : mono_ms() + timeout, due, left, wait;
	bool sim = false;
	nfds_t i;
	int ret;

	pthread_once(&once, init);
	for (i = 0; i < nfds; i++)
		sim |= sim_fd(fds[i].fd);
	if (!sim)
		return next_poll(fds, nfds, timeout);
	for (;;) {
		ret = ready_now(fds, nfds, &due);
		if (ret)
			return ret;
		left = end < 0 ? -1 : end - mono_ms();
		wait = due < 0 ? WAKE_MS : due - mono_ms();
		if (wait > WAKE_MS)
			wait = WAKE_MS;
		if (wait < 0)
			wait = 0;
		if (left >= 0 && left < wait)
			wait = left > 0 ? left : 0;
		ret = next_poll(fds, nfds, (int)wait);
		if (ret || (left >= 0 && left <= wait))
			return ret;
	}
}
