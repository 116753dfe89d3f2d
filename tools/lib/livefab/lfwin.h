/* SPDX-License-Identifier: MIT */
/*
 * A window of MADs in flight through one umad agent: requests sent as
 * the window has room, answers matched by transaction ID, a request
 * unanswered in time asked again, one never answered reported.  The SA's
 * PathRecords and the switches' LFT and SL2VL reads both go through it.
 */
#ifndef GPUAWARE_LFWIN_H
#define GPUAWARE_LFWIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LF_WIN_MAX 64		/* the most MADs in flight */

/* A request in flight. */
struct lf_win_slot {
	bool used;
	uint64_t tag;		/* the caller's: what it asks */
	uint32_t trid;		/* the low half: the kernel owns the high */
	unsigned int tries;
	uint64_t due;		/* CLOCK_MONOTONIC ms its wait ends */
};

/*
 * One run's requests, by the caller's tags.  A non-zero return from build
 * or answer stops the run with that value (err set by the callback).
 */
struct lf_win_ops {
	/* the next request's tag into *tag; false when there are no more */
	bool (*next)(void *ctx, uint64_t *tag);
	/* the MAD asking tag with TID trid into umad (a umad header and
	 * one MAD, zeroed): 0 or a negative errno */
	int (*build)(void *ctx, uint64_t tag, uint64_t trid, void *umad,
		     char *err, size_t len);
	/* tag's answer, len bytes from the MAD header on: 0 when done
	 * with it, -EBUSY to ask again, another negative errno to stop */
	int (*answer)(void *ctx, uint64_t tag, uint8_t *mad, int len,
		      char *err, size_t elen);
	/* tag unanswered after every try: what to say, into err */
	void (*lost)(void *ctx, uint64_t tag, char *err, size_t len);
	void *ctx;
};

/*
 * The window over the caller's umad port and agent (neither owned).  The
 * first wait for an answer is wait_ms, each retry waits twice as long, a
 * request is asked tries times in all.  Buffers owned, freed by
 * lf_win_release().
 */
struct lf_win {
	int port, agent;
	unsigned int window, wait_ms, tries;
	uint64_t resent;	/* requests asked again, over the window's life */
	struct lf_win_slot slot[LF_WIN_MAX];
	uint8_t *buf;		/* umad header, then the answer */
	int buf_cap;		/* MAD bytes buf holds */
	uint8_t *req;		/* umad header, then one MAD */
	bool stale;		/* a run ended with answers still to come */
};

/* 0, or -ENOMEM; window is clamped to 1 .. LF_WIN_MAX. */
int lf_win_init(struct lf_win *w, int port, int agent, unsigned int window,
		unsigned int wait_ms, unsigned int tries);

/*
 * Read what is still coming (ibsim's umad2sim deadlocks when a MAD
 * arrives while its port closes), then free the buffers.
 */
void lf_win_release(struct lf_win *w);

/*
 * Send every request ops->next gives, window requests at a time, until
 * each is answered.  0; -ETIMEDOUT when one went unanswered after its
 * tries (ops->lost said which); a callback's return; another negative
 * errno.  err gets one line on failure.
 */
int lf_win_run(struct lf_win *w, const struct lf_win_ops *ops, char *err,
	       size_t len);

#endif
