// SPDX-License-Identifier: MIT
/*
 * ibpoolroute: the diagnostics CLI.  One option table (tools/lib/cli) drives
 * getopt_long and --help; each subcommand says which options it takes.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibpoolroute.h"
#include "tools/lib/cli/cli.h"
#include "tools/lib/livefab/lfwin.h"
#include "tools/lib/pool/hostlist.h"

#define PROG "ibpoolroute"

enum {
	C_ANALYZE = 1 << 0,
	C_ROUTE = 1 << 1,
	C_VERIFY = 1 << 2,
	C_HINTS = 1 << 3,
	C_STATE = 1 << 4,
	C_REROUTE = 1 << 5,
	C_COUNTERS = 1 << 6,
	C_SM = C_HINTS | C_STATE | C_REROUTE,
	C_CHECKS = C_ANALYZE | C_ROUTE | C_VERIFY,
	/* ibpoold's socket */
	C_POOL = 1 << 7,
	C_ALLOC = 1 << 8,
	C_RELEASE = 1 << 9,
	C_RENEW = 1 << 10,
	C_LIST = 1 << 11,
	C_PLACE = 1 << 12,
	C_JOBS = 1 << 13,
	C_TOPO = 1 << 14,
	C_SIM = 1 << 15,
	C_MAP = 1 << 16,
	C_TRACE = 1 << 17,
	C_REPLAY = 1 << 18,
	C_SUBMIT = 1 << 19,
	C_CANCEL = 1 << 20,
	C_QUEUE = 1 << 21,
	C_WATCH = 1 << 22,
	C_HOST = 1 << 23,
	C_ORPHANS = 1 << 24,
	C_POOLD = C_POOL | C_ALLOC | C_RELEASE | C_RENEW | C_LIST | C_PLACE |
		  C_JOBS | C_TOPO | C_SUBMIT | C_CANCEL | C_QUEUE | C_WATCH |
		  C_HOST | C_ORPHANS,
	C_ALL = C_CHECKS | C_COUNTERS | C_SM | C_POOLD | C_SIM | C_MAP |
		C_TRACE | C_REPLAY,
};

#define POOL_SOCKET_DEFAULT "/run/gpuaware/pool.sock"

/* Long-only options */
enum {
	O_OWNER = CLI_LONG_ONLY,
	O_LOAD,
	O_SA,
	O_SAMPLE,
	O_PROGRESS,
	O_NO_PROGRESS,
	O_TOP,
	O_GEN,
	O_STATS,
	O_CONVERT,
	O_RUNTIMES,
	O_USERS,
	O_SVG,
	O_MIX,
	O_TRACE,
	O_NODES,
	O_POLICY,
	O_GPH,
	O_QUEUE,
	O_CLASS,
	O_GROUP,
	O_NAME,
	O_LIMIT,
	O_DROP,
	O_FOLD,
	O_SMP_WINDOW,
	O_EVENTS,
	O_MINE,
	O_TICKETS,
	O_IDS,
	O_RESTART,
	O_GANG_WAIT,
	O_COMM_SHARE,
	O_GANG_PLACE,
	O_MILLI,
	O_RDMA,
	O_FAIL_MTBF,
	O_REPAIR,
	O_CHECKPOINT,
	O_FAIL_TRACE,
	O_FAIL_RECOVER,
	O_VLS,
};

struct cmd {
	const char *name;
	unsigned int bit;
	const char *args;	/* positional arguments, for usage */
	int npos;		/* how many it takes; -N: at least N */
	const char *help;
	int (*run)(const struct pr_opts *o, char *err, size_t len);
};

static const struct cmd cmds[] = {
	{ "analyze", C_ANALYZE, "DIR", 1,
	  "check the routing OpenSM dumped into DIR (log_flags 0x40)",
	  pr_analyze },
	{ "route", C_ROUTE, "--net FILE", 0,
	  "route a fabric file offline and check the result", pr_route },
	{ "verify", C_VERIFY, "[-C CA -P PORT]", 0,
	  "check the live fabric: switch LFTs and SL2VL, SA path SLs",
	  pr_verify },
	{ "simulate", C_SIM, "--jobs FILE", 0,
	  "the jobs' collectives at once on a routing: bandwidth per job",
	  pr_simulate },
	{ "map", C_MAP, "[-o FILE.svg]", 0,
	  "the fabric as a picture, links coloured by load, hosts by job",
	  pr_map },
	{ "counters", C_COUNTERS, "[--interval MS]", 0,
	  "data and xmit-wait rate of every switch port, busiest first",
	  pr_counters },
	{ "hints", C_HINTS, "get|set|add|remove ...", -1,
	  "the SM's job table: show it, replace it, add or remove a job",
	  pr_hints },
	{ "state", C_STATE, "", 0,
	  "what the SM routed for: topology, engine, generations, quality",
	  pr_state },
	{ "reroute", C_REROUTE, "", 0,
	  "ask the SM to route again now", pr_reroute },
	{ "pool", C_POOL, "", 0, "ibpoold: hosts, free GPUs, fabric, relay",
	  pr_pool_status },
	{ "alloc", C_ALLOC, "--gpus N | --milli M [--rdma P]", 0,
	  "ibpoold: allocate GPUs for --client (this host)", pr_pool_alloc },
	{ "release", C_RELEASE, "ID", 1, "ibpoold: release an allocation",
	  pr_pool_release },
	{ "renew", C_RENEW, "ID", 1, "ibpoold: renew an allocation's lease",
	  pr_pool_renew },
	{ "allocs", C_LIST, "", 0, "ibpoold: list the allocations",
	  pr_pool_list },
	{ "submit", C_SUBMIT, "--gpus N --per-host G", 0,
	  "ibpoold: queue a gang of hosts (all or none)", pr_pool_submit },
	{ "cancel", C_CANCEL, "TICKET", 1, "ibpoold: drop a queued request",
	  pr_pool_cancel },
	{ "queue", C_QUEUE, "", 0, "ibpoold: list the queued requests",
	  pr_pool_queue },
	{ "watch", C_WATCH, "", 0,
	  "ibpoold: print the pool's events as they happen", pr_pool_watch },
	{ "host", C_HOST, "drain|fail|resume HOST", 2,
	  "ibpoold: take a host out of the pool or back (root)",
	  pr_pool_host },
	{ "place", C_PLACE, "--gpus N --per-host G", 0,
	  "ibpoold: where a job of N GPUs should run", pr_pool_place },
	{ "jobs", C_JOBS, "[--start J --hosts H|--end J]", 0,
	  "ibpoold: list, start or end jobs", pr_pool_jobs },
	{ "topology", C_TOPO, "[--format F]", 0,
	  "ibpoold: the fabric for Slurm, Kubernetes labels or Kueue",
	  pr_pool_topology },
	{ "trace", C_TRACE, "--gen philly|--stats FILE", 0,
	  "write a Philly-shaped job trace, or a trace's statistics",
	  pr_trace },
	{ "replay", C_REPLAY, "--trace FILE --policy P[,P...]", 0,
	  "a job trace through the pool's scheduler, one row per policy",
	  pr_replay },
	{ "orphans", C_ORPHANS, "[--drop]", 0,
	  "ibpoold: allocations of GPUs the config no longer has",
	  pr_pool_orphans },
};

/* The one option table: getopt_long's and --help's; mask: C_* taking it. */
static const struct cli_opt opts[] = {
	{ "net", 1, 'n', C_ROUTE | C_SIM | C_MAP | C_REPLAY, "FILE", "ibsim net file or ibnetdiscover output to route; replay: the fabric whose hosts run the trace" },
	{ "trace", 1, O_TRACE, C_REPLAY, "FILE", "replay: the job trace (plain CSV, Alibaba 2023 pods or 2025)" },
	{ "nodes", 1, O_NODES, C_REPLAY, "FILE", "replay: an Alibaba node list instead of --net (one level, no flow model)" },
	{ "policy", 1, O_POLICY, C_REPLAY, "LIST", "replay: fifo, priority, easy, predicted, tiresias, bestfit, fgd, fgdcpu, fgdfill, sjf, srpt, comma-separated" },
	{ "gpus-per-host", 1, O_GPH, C_REPLAY, "N", "replay --net: GPUs on each host, 1-64 (8)" },
	{ "restart", 1, O_RESTART, C_REPLAY, "S", "replay: run time a preemption adds to its victim, seconds (60; 0: free)" },
	{ "gang-place", 1, O_GANG_PLACE, C_REPLAY, "P", "replay: tree (the fabric's levels, the default) or first (lowest-numbered hosts with room: a cluster without topology awareness)" },
	{ "gang-wait", 1, O_GANG_WAIT, C_REPLAY, "S", "replay --net: a gang may wait up to S seconds for a lower tree level when the flow model says it pays (0, as gang_wait_s)" },
	{ "comm-share", 1, O_COMM_SHARE, C_REPLAY, "F", "replay --net: share 0-1 of a multi-host job's run time that is communication, stretched by its slowdown on the flow model (0: run times as traced)" },
	{ "fail-mtbf", 1, O_FAIL_MTBF, C_REPLAY, "S", "replay: each host fails after an exponential time of mean S seconds, drawn from --seed, the same under every policy (0: never)" },
	{ "repair", 1, O_REPAIR, C_REPLAY, "S", "replay: a failed host is back S seconds later (3600)" },
	{ "checkpoint", 1, O_CHECKPOINT, C_REPLAY, "S", "replay: a job a failure hits keeps the work of its last checkpoint, one every S seconds of its run's work (3600; 0: none, it redoes the whole run)" },
	{ "fail-trace", 1, O_FAIL_TRACE, C_REPLAY, "FILE", "replay: scripted host events, lines time,host,down|up (host: the fabric's name or an index from 0)" },
	{ "fail-recover", 1, O_FAIL_RECOVER, C_REPLAY, "R", "replay: a job a failure hits is replaced (new GPUs where there are, as ibpoold) or requeued whole; auto: requeued under fifo, easy, tiresias, bestfit, fgd, fgdcpu, fgdfill and sjf (as Slurm and Kubernetes do), replaced under the rest" },
	{ "dump", 1, 'D', C_SIM | C_MAP, "DIR", "the routing OpenSM dumped into DIR instead of the live one" },
	{ "jobs", 1, 'J', C_CHECKS | C_SIM | C_MAP | C_TRACE, "FILE", "JSON job list: route for the jobs, report their own link loads; trace --gen: how many jobs" },
	{ "search-moves", 1, 'm', C_ROUTE | C_SIM | C_MAP, "N", "with --jobs on a fat-tree: entries the job search tries, 0-100000000 (0: the default budget)" },
	{ "pattern", 1, 't', C_SIM | C_MAP, "NAME", "ring, alltoall or nccl-alltoall (all)" },
	{ "rounds", 1, 'r', C_SIM | C_MAP, "N", "all-to-all rounds, 1-1000000 (the largest job's ranks - 1)" },
	{ "shuffle", 0, 'u', C_SIM | C_MAP, NULL, "all-to-all over a random rank order (--seed), not the host list's" },
	{ "oracle", 0, 'a', C_SIM, NULL, "also the rounds routed by source, knowing every job's or only its own" },
	{ "measure-only", 0, 'M', C_ROUTE | C_SIM | C_MAP, NULL, "with --jobs: route as without jobs, only measure their loads" },
	{ "engine", 1, 'e', C_ROUTE | C_SIM | C_MAP | C_REPLAY, "NAME", RT_ENGINE_NAMES " (auto)" },
	{ "lmc", 1, 'l', C_ROUTE | C_SIM | C_MAP, "N", "LIDs per CA port are 2^N, 0-7 (0)" },
	{ "vls", 1, O_VLS, C_ROUTE | C_SIM | C_MAP, "N", "data VLs the SM can program, as the plugin sees them (1 with QoS off; 1-15, default no limit): switch answers and switch-LID layers stay within them" },
	{ "extended-lids", 0, 'x', C_ROUTE, NULL, "allow LIDs past 0xbfff (offline scale runs beyond one subnet)" },
	{ "Ca", 1, 'C', C_VERIFY | C_COUNTERS | C_SIM | C_MAP, "CA", "local CA to query through (the first)" },
	{ "Port", 1, 'P', C_VERIFY | C_COUNTERS | C_SIM | C_MAP, "PORT", "its port (the first active)" },
	{ "output", 1, 'o', C_MAP | C_TRACE, "FILE", "map: the SVG to write; trace: the CSV; - for stdout (-)" },
	{ "load", 1, O_LOAD, C_MAP | C_TRACE, "NAME", "map: colour links by a2a (the routing's all-to-all), jobs (--jobs' collectives, --pattern) or counters (live) (jobs with --jobs, else a2a); trace --gen: the offered load, GPU-seconds over --gpus x the span of arrivals" },
	{ "gen", 1, O_GEN, C_TRACE, "NAME", "trace: generate a trace: philly (Philly's run times and GPU mix, Poisson arrivals)" },
	{ "stats", 1, O_STATS, C_TRACE, "FILE", "trace: the statistics of a trace (plain CSV or an Alibaba trace)" },
	{ "convert", 1, O_CONVERT, C_TRACE, "FILE", "trace: FILE (an Alibaba trace or plain CSV) as plain CSV to -o, every row kept and flagged so that replay reads it as it reads FILE" },
	{ "runtimes", 1, O_RUNTIMES, C_TRACE, "FILE", "trace --gen: Philly's run times ($GPUAWARE_TRACES/philly-2017-runtimes.csv, else ../shared/traces/)" },
	{ "users", 1, O_USERS, C_TRACE, "N", "trace --gen: users, Zipf-drawn, 1-1000000 (100)" },
	{ "mix", 1, O_MIX, C_TRACE, "LIST", "trace --gen: GPU counts as GPUS:SHARE,... (1:70,2:10,4:15,8:4.885,16:0.061,32:0.031,64:0.015,128:0.008, Philly's)" },
	{ "svg", 1, O_SVG, C_TRACE | C_REPLAY, "DIR", "trace --stats: write charts into DIR: demand.svg (GPUs asked over time), runtime-cdf.svg; replay: utilisation.svg and jct-cdf.svg" },
	{ "fold", 1, O_FOLD, C_MAP, "N", "map: each box's hosts as one bar (count, load, jobs) once the fabric has more than N hosts, 0: always (512)" },
	{ "interval", 1, 'i', C_COUNTERS | C_MAP, "MS", "wait between the two samples, 1-3600000 ms (1000)" },
	{ "top", 1, O_TOP, C_COUNTERS, "N", "counters: only the N busiest links (all)" },
	{ "sa", 1, O_SA, C_VERIFY, "MODE", "verify: ask the SA per source (table: one GetTable each), per pair (pair: one Get each), or auto: table where the SA's answers arrive whole, else pair (auto)" },
	{ "smp-window", 1, O_SMP_WINDOW, C_VERIFY, "N", "verify: LFT and SL2VL Gets in flight, 1-64 (8); 1: one at a time" },
	{ "sample", 1, O_SAMPLE, C_VERIFY, "N", "verify: ask the SA about N random pairs (--seed), not all; credit loops are then not checked (all)" },
	{ "progress", 0, O_PROGRESS, C_VERIFY | C_REPLAY, NULL, "verify: progress lines on stderr (on a terminal, or once a run takes 5 s)" },
	{ "no-progress", 0, O_NO_PROGRESS, C_VERIFY | C_REPLAY, NULL, "verify: no progress lines" },
	{ "socket", 1, 'S', C_SM | C_POOLD, "PATH", "the SM's hint socket (" PR_SM_SOCKET ") or ibpoold's ($GPUAWARE_POOL_SOCKET, else " POOL_SOCKET_DEFAULT "); tcp:HOST:PORT: a TCP listener, the request in a MUNGE credential" },
	{ "munge-socket", 1, 'U', C_SM | C_POOLD, "PATH", "munged's socket for tcp: ($GPUAWARE_MUNGE_SOCKET, else munge's default)" },
	{ "weight", 1, 'w', C_HINTS, "N", "hints add: the job's weight, 1-1000 (1)" },
	{ "owner", 1, O_OWNER, C_HINTS, "NAME", "hints add: the job's owner; hints set: replace only NAME's jobs, keeping the others'; hints remove: only a job of NAME" },
	{ "wait", 0, 'W', C_HINTS | C_REROUTE, NULL, "return once the switches hold the routing for the change" },
	{ "timeout", 1, 'T', C_SM, "MS", "give up after MS milliseconds (5000; with --wait 60000)" },
	{ "json", 0, 'j', C_ALL, NULL, "print one JSON object instead of text" },
	{ "perms", 1, 'p', C_CHECKS | C_SIM, "N", "random permutations for eBB, 0 skips it (100)" },
	{ "seed", 1, 's', C_CHECKS | C_SIM | C_MAP | C_TRACE | C_REPLAY, "S", "seed of the eBB permutations (1), the all-to-all's shifts, trace --gen and replay's packing measure (its pods shuffled; 0: in trace order)" },
	{ "client", 1, 'c', C_ALLOC | C_SUBMIT, "HOST", "host the GPUs are for (this host)" },
	{ "gpus", 1, 'g', C_ALLOC | C_PLACE | C_SUBMIT | C_TRACE, "N", "GPUs wanted; trace: the capacity the offered load refers to" },
	{ "per-host", 1, 'G', C_PLACE | C_SUBMIT, "G", "GPUs per host (submit: on each host but the last)" },
	{ "lease", 1, 'L', C_ALLOC | C_RENEW | C_SUBMIT, "S", "lease in seconds (the pool's default); short leases renewed often are heartbeats" },
	{ "job", 1, 'k', C_ALLOC | C_SUBMIT, "JOB", "job the allocation belongs to" },
	{ "milli", 1, O_MILLI, C_ALLOC, "M", "alloc: a share of one GPU, M of 1000 milli-GPUs (1000: the whole GPU)" },
	{ "rdma", 1, O_RDMA, C_ALLOC, "P", "alloc: P percent of the RDMA bandwidth of each HCA it uses; alone, of one HCA" },
	{ "queue", 0, O_QUEUE, C_ALLOC, NULL, "alloc: wait in the queue when the GPUs are not free (a ticket), instead of pool_full" },
	{ "class", 1, O_CLASS, C_ALLOC | C_SUBMIT, "NAME", "queued: the request's class ([sched] classes; the default class)" },
	{ "group", 1, O_GROUP, C_ALLOC | C_SUBMIT, "NAME", "queued: the quota group it counts against (none)" },
	{ "name", 1, O_NAME, C_ALLOC | C_SUBMIT, "NAME", "queued: a job name, for run-time predictions" },
	{ "limit", 1, O_LIMIT, C_ALLOC | C_SUBMIT, "S", "queued: run-time limit in seconds, for backfill (none)" },
	{ "start", 1, 'b', C_JOBS, "JOB", "record that JOB started on --hosts" },
	{ "hosts", 1, 'H', C_JOBS, "EXPR", "hosts of --start, a Slurm hostlist" },
	{ "end", 1, 'E', C_JOBS, "JOB", "record that JOB ended" },
	{ "format", 1, 'f', C_TOPO | C_TRACE | C_REPLAY, "F", "slurm-tree, slurm-block, slurm-yaml, k8s-labels, kueue, slurm-gres or k8s-hami (slurm-tree); trace --stats, replay: the trace's, plain, alibaba2023 or alibaba2025 (from the header)" },
	{ "drop", 0, O_DROP, C_ORPHANS, NULL, "orphans: forget those GPUs (root)" },
	{ "events", 1, O_EVENTS, C_WATCH, "LIST", "watch: only these events, comma-separated (granted,lost,... all)" },
	{ "mine", 0, O_MINE, C_WATCH, NULL, "watch: only the events of my uid's tickets and allocations" },
	{ "tickets", 1, O_TICKETS, C_WATCH, "LIST", "watch: only the events of these tickets or of --ids' allocations, comma-separated" },
	{ "ids", 1, O_IDS, C_WATCH, "LIST", "watch: only the events of these allocations or of --tickets', comma-separated" },
	{ "help", 0, 'h', C_ALL, NULL, "show this help" },
	{ "version", 0, 'V', C_ALL, NULL, "print the version and exit" },
};

#define NOPTS (sizeof(opts) / sizeof(opts[0]))
CLI_TABLE_FITS(opts);
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static const char *const examples[] = {
	"ibpoolroute analyze /var/log/opensm-dumps",
	"ibpoolroute analyze --json --perms 0 dumps/",
	"ibpoolroute analyze --jobs jobs.json dumps/",
	"ibpoolroute route --net ibsim-configs/ft2-tiny.net",
	"ibpoolroute route --net fabric.net --engine updown --lmc 1 --json",
	"ibpoolroute route --net fabric.net --jobs jobs.json --perms 0",
	"ibpoolroute verify",
	"ibpoolroute verify -C mlx5_0 -P 1 --json --perms 0",
	"ibpoolroute verify --sample 100000",
	"ibpoolroute simulate --net fabric.net --jobs jobs.json",
	"ibpoolroute simulate --jobs jobs.json --pattern ring --json",
	"ibpoolroute map --net fabric.net -o fabric.svg",
	"ibpoolroute map --jobs jobs.json -o jobs.svg",
	"ibpoolroute map --load counters --interval 5000 -o now.svg",
	"ibpoolroute counters --interval 5000 --top 20",
	"ibpoolroute hints set jobs.json --wait",
	"ibpoolroute hints add j7 gpu01 gpu02 0x0002c90300a1b2c4 --weight 2",
	"ibpoolroute hints set --owner slurm slurm-jobs.json",
	"ibpoolroute hints remove j7",
	"ibpoolroute state --json",
	"ibpoolroute alloc --client node07 --gpus 4 --lease 600 --job j1",
	"ibpoolroute release 12",
	"ibpoolroute alloc --gpus 8 --queue --class high --lease 60",
	"ibpoolroute alloc --milli 250 --rdma 20",
	"ibpoolroute submit --gpus 32 --per-host 8 --limit 7200",
	"ibpoolroute watch --json",
	"ibpoolroute watch --mine --events lost,replaced,requeued,revoked",
	"ibpoolroute cancel 7",
	"ibpoolroute host drain node07",
	"ibpoolroute place --gpus 32 --per-host 8 --json",
	"ibpoolroute pool --socket tcp:127.0.0.1:7070",
	"ibpoolroute hints add j7 gpu01 gpu02 --socket tcp:sm01:7071",
	"ibpoolroute jobs --start j1 --hosts 'node[01-04]'",
	"ibpoolroute topology --format k8s-labels",
	"ibpoolroute trace --gen philly --jobs 50000 --load 1.05 --gpus 512 --seed 1 -o philly.csv",
	"ibpoolroute trace --stats alibaba-gpu-v2023-pods.csv --gpus 6212",
	"ibpoolroute replay --trace philly.csv --net tree.net --policy easy,predicted,tiresias,sjf",
	"ibpoolroute replay --trace alibaba-gpu-v2023-pods.csv --nodes alibaba-gpu-v2023-nodes.csv --policy bestfit,fgd --json",
	"ibpoolroute orphans --drop",
};

static void usage(FILE *out)
{
	char left[48], tail[256];
	size_t i, k, at;

	fprintf(out, "Usage: " PROG " COMMAND [options]\n\nCommands:\n");
	for (i = 0; i < NCMDS; i++) {
		snprintf(left, sizeof(left), "%s %s", cmds[i].name,
			 cmds[i].args);
		fprintf(out, "  %-24s %s\n", left, cmds[i].help);
	}
	fprintf(out, "\nOptions:\n");
	for (i = 0; i < NOPTS; i++) {
		const struct cli_opt *o = &opts[i];
		const char *sep = " [";

		at = 0;
		tail[0] = '\0';
		for (k = 0; o->mask != C_ALL && k < NCMDS; k++)
			if (o->mask & cmds[k].bit) {
				at += snprintf(tail + at, sizeof(tail) - at,
					       "%s%s", sep, cmds[k].name);
				sep = ", ";
			}
		if (at)
			snprintf(tail + at, sizeof(tail) - at, "]");
		cli_help_opt(out, o, 24, tail);
	}
	fprintf(out, "\nExit status: 0 the routing checks out (pool commands: done), 1 it does not (counters: a switch did not answer; pool commands: ibpoold refused), 2 usage, input or I/O error.\n\nExamples:\n");
	for (i = 0; i < sizeof(examples) / sizeof(examples[0]); i++)
		fprintf(out, "  %s\n", examples[i]);
}

/*
 * A usage error: one line on stderr pointing to --help, or with --json
 * one error object on stdout.  Returns PR_ERR.
 */
__attribute__((format(printf, 2, 3)))
static int usage_error(const struct pr_opts *o, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (o->json)
		pr_print_error("usage", msg, "try '" PROG " --help'");
	else
		cli_usage(PROG, NULL, "%s", msg);
	return PR_ERR;
}

/*
 * Whether the command line asks for --json: then errors met before the
 * option is parsed come as JSON too.
 */
static bool wants_json(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			return true;
	return false;
}

/* Whole-string decimal number at most max. */
static int number(const char *s, unsigned long long max,
		  unsigned long long *v)
{
	return cli_uint(s, 10, max, v);
}

/* A share from 0 to 1 into *v: 0, or -EINVAL. */
static int share(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return end == s || *end || !(*v >= 0 && *v <= 1) ? -EINVAL : 0;
}

static int sa_parse(const char *s, enum pr_sa *m)
{
	static const char *const names[] = { "auto", "table", "pair" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*m = (enum pr_sa)i;
			return 0;
		}
	return -EINVAL;
}

/* Apply one option to o; PR_OK or an exit code. */
static int set_opt(struct pr_opts *o, int c, const char *arg)
{
	unsigned long long v;

	switch (c) {
	case 'n':
		o->net = arg;
		break;
	case 'D':
		o->dump = arg;
		break;
	case 't':
		if (cs_pattern_parse(arg, &o->pattern))
			return usage_error(o, "unknown pattern '%s'", arg);
		o->pattern_set = true;
		break;
	case 'r':
		if (number(arg, 1000000, &v) || !v)
			return usage_error(o, "bad rounds '%s' (1-1000000)", arg);
		o->rounds = v;
		break;
	case 'u':
		o->shuffle = true;
		break;
	case 'a':
		o->oracle = true;
		break;
	case 'J':
		o->jobs = arg;
		break;
	case 'M':
		o->jobs_unrouted = true;
		break;
	case 'e':
		if (rt_engine_parse(arg, &o->engine))
			return usage_error(o, "unknown engine '%s'", arg);
		break;
	case 'm':
		if (number(arg, RT_JOB_SEARCH_MAX, &v))
			return usage_error(o, "bad search moves '%s' (0-%u)", arg,
					   RT_JOB_SEARCH_MAX);
		o->search_moves = v;
		break;
	case 'l':
		if (number(arg, 7, &v))
			return usage_error(o, "bad LMC '%s' (0-7)", arg);
		o->lmc = v;
		break;
	case 'x':
		o->ext_lids = true;
		break;
	case 'C':
		o->ca = arg;
		break;
	case 'P':
		if (number(arg, FAB_MAX_PORTS, &v) || !v)
			return usage_error(o, "bad port '%s' (1-%u)", arg,
					   FAB_MAX_PORTS);
		o->ca_port = v;
		break;
	case 'S':
		o->socket = arg;
		break;
	case 'U':
		o->munge = arg;
		break;
	case 'w':
		if (number(arg, 1000, &v) || !v)
			return usage_error(o, "bad weight '%s' (1-1000)", arg);
		o->weight = v;
		break;
	case 'W':
		o->wait = true;
		break;
	case O_OWNER:
		o->owner = arg;
		break;
	case 'o':
		o->output = arg;
		break;
	case O_LOAD:
		o->load_arg = arg;
		break;
	case O_GEN:
		o->trace_gen = arg;
		break;
	case O_STATS:
		o->trace_stats = arg;
		break;
	case O_CONVERT:
		o->trace_convert = arg;
		break;
	case O_RUNTIMES:
		o->runtimes = arg;
		break;
	case O_SVG:
		o->svg = arg;
		break;
	case O_MIX:
		o->trace_mix = arg;
		break;
	case O_USERS:
		if (number(arg, 1000000, &v) || !v)
			return usage_error(o, "bad user count '%s' (1-1000000)",
					   arg);
		o->trace_users = v;
		break;
	case 'T':
		if (number(arg, 3600000, &v) || !v)
			return usage_error(o, "bad timeout '%s' (1-3600000 ms)",
					   arg);
		o->timeout_ms = v;
		break;
	case 'i':
		if (number(arg, 3600000, &v) || !v)
			return usage_error(o, "bad interval '%s' (1-3600000 ms)",
					   arg);
		o->interval_ms = v;
		break;
	case O_TRACE:
		o->trace = arg;
		break;
	case O_NODES:
		o->nodes = arg;
		break;
	case O_POLICY:
		o->policy = arg;
		break;
	case O_GPH:
		if (number(arg, 64, &v) || !v)
			return usage_error(o, "bad GPU count '%s' (1-64)", arg);
		o->gpus_per_host = v;
		break;
	case O_DROP:
		o->drop = true;
		break;
	case O_SMP_WINDOW:
		if (number(arg, LF_WIN_MAX, &v) || !v)
			return usage_error(o, "bad SMP window '%s' (1-%u)", arg,
					   LF_WIN_MAX);
		o->smp_window = v;
		break;
	case O_FOLD:
		if (number(arg, UINT32_MAX, &v))
			return usage_error(o, "bad host count '%s' (0 or more)",
					   arg);
		o->fold = v;
		break;
	case O_RESTART:
		if (number(arg, 86400, &v))
			return usage_error(o, "bad restart '%s' (0-86400 s)",
					   arg);
		o->restart = v;
		break;
	case O_FAIL_MTBF:
	case O_REPAIR:
	case O_CHECKPOINT:
		if (number(arg, UINT32_MAX, &v))
			return usage_error(o, "bad time '%s' (0-%u s)", arg,
					   UINT32_MAX);
		*(c == O_FAIL_MTBF ? &o->fail_mtbf :
		  c == O_REPAIR ? &o->repair : &o->checkpoint) = (double)v;
		break;
	case O_FAIL_TRACE:
		o->fail_trace = arg;
		break;
	case O_VLS:
		if (number(arg, 15, &v) || !v)
			return usage_error(o, "bad VL count '%s' (1-15)", arg);
		o->vls = v;
		break;
	case O_FAIL_RECOVER:
		if (!strcmp(arg, "auto"))
			o->fail_recover = RPL_RECOVER_AUTO;
		else if (!strcmp(arg, "replace"))
			o->fail_recover = RPL_RECOVER_REPLACE;
		else if (!strcmp(arg, "requeue"))
			o->fail_recover = RPL_RECOVER_REQUEUE;
		else
			return usage_error(o, "bad recovery '%s' (auto, replace or requeue)",
					   arg);
		break;
	case O_GANG_PLACE:
		if (strcmp(arg, "tree") && strcmp(arg, "first"))
			return usage_error(o,
					   "bad gang placement '%s' (tree or first)",
					   arg);
		o->gang_first_fit = !strcmp(arg, "first");
		break;
	case O_GANG_WAIT:
		if (number(arg, 2592000, &v))
			return usage_error(o, "bad wait '%s' (0-2592000 s)",
					   arg);
		o->gang_wait = (unsigned int)v;
		break;
	case O_COMM_SHARE:
		if (share(arg, &o->comm_share))
			return usage_error(o, "bad share '%s' (0 to 1)", arg);
		break;
	case O_TOP:
		if (number(arg, SIZE_MAX, &v) || !v)
			return usage_error(o, "bad link count '%s' (1 or more)",
					   arg);
		o->top = v;
		break;
	case O_SA:
		if (sa_parse(arg, &o->sa))
			return usage_error(o, "unknown SA mode '%s' (auto, table or pair)",
					   arg);
		break;
	case O_SAMPLE:
		if (number(arg, UINT64_MAX, &v) || !v)
			return usage_error(o, "bad sample '%s' (1 or more pairs)",
					   arg);
		o->sample = v;
		break;
	case O_PROGRESS:
	case O_NO_PROGRESS:
		o->progress = c == O_PROGRESS ? PR_PROGRESS_ON :
						PR_PROGRESS_OFF;
		break;
	case 'j':
		o->json = true;
		break;
	case 'c':
		o->client = arg;
		break;
	case 'g':
	case 'G':
		if (number(arg, 65536, &v) || !v)
			return usage_error(o, "bad GPU count '%s'", arg);
		*(c == 'g' ? &o->gpus : &o->per_host) = v;
		break;
	case 'L':
		if (number(arg, UINT_MAX, &v) || !v)
			return usage_error(o, "bad lease '%s' (seconds)", arg);
		o->lease = v;
		break;
	case 'k':
	case 'b':
		o->job = arg;
		break;
	case O_QUEUE:
		o->queue = true;
		break;
	case O_MILLI:
	case O_RDMA:
		/* the range is the daemon's to check (bad_request) */
		if (number(arg, 65536, &v) || !v)
			return usage_error(o, "bad %s '%s'", c == O_MILLI ?
					   "GPU share (milli)" :
					   "RDMA share (percent)", arg);
		*(c == O_MILLI ? &o->milli : &o->rdma) = v;
		break;
	case O_EVENTS:
		o->events = arg;
		break;
	case O_MINE:
		o->mine = true;
		break;
	case O_TICKETS:
		o->tickets = arg;
		break;
	case O_IDS:
		o->ids = arg;
		break;
	case O_CLASS:
		o->cls = arg;
		break;
	case O_GROUP:
		o->group = arg;
		break;
	case O_NAME:
		o->name = arg;
		break;
	case O_LIMIT:
		if (number(arg, UINT_MAX, &v) || !v)
			return usage_error(o, "bad limit '%s' (seconds)", arg);
		o->limit = v;
		break;
	case 'H':
		o->hosts = arg;
		break;
	case 'E':
		o->end_job = arg;
		break;
	case 'f':
		o->format = arg;
		break;
	case 'p':
		if (number(arg, UINT_MAX, &v))
			return usage_error(o, "bad permutation count '%s'", arg);
		o->vf.ebb_perms = v;
		break;
	case 's':
		if (number(arg, UINT64_MAX, &v))
			return usage_error(o, "bad seed '%s'", arg);
		o->vf.seed = v;
		break;
	}
	return PR_OK;
}

/* map's choices that depend on each other; PR_OK or an exit code. */
static int map_opts(struct pr_opts *o)
{
	if (!o->load_arg)
		o->load = o->jobs ? PR_LOAD_JOBS : PR_LOAD_A2A;
	else if (pr_load_parse(o->load_arg, &o->load))
		return usage_error(o, "unknown load '%s' (a2a, jobs or counters)",
				   o->load_arg);
	if (!o->output)
		o->output = "-";
	if (o->load == PR_LOAD_JOBS && !o->jobs)
		return usage_error(o, "map --load jobs needs --jobs FILE");
	if (o->load == PR_LOAD_COUNTERS && (o->net || o->dump))
		return usage_error(o, "map --load counters reads the live fabric: no --net or --dump");
	if (o->json && !strcmp(o->output, "-"))
		return usage_error(o, "map --json needs -o FILE: the SVG would share stdout");
	return PR_OK;
}

/*
 * Hidden mode for the Slurm hooks where scontrol is missing: one name per
 * line, as "scontrol show hostnames" prints them.
 */
static int expand_hostlist(const char *expr)
{
	char err[512], **names;
	size_t n, i;

	if (pool_hostlist_expand(expr, POOL_HOSTLIST_MAX, &names, &n, err,
				 sizeof(err))) {
		fprintf(stderr, PROG ": %s\n", err);
		return PR_ERR;
	}
	for (i = 0; i < n; i++)
		puts(names[i]);
	pool_hostlist_free(names, n);
	return PR_OK;
}

int main(int argc, char **argv)
{
	struct pr_opts o = {
		.engine = RT_ENGINE_AUTO,
		.interval_ms = 1000,
		.fold = PR_FOLD_HOSTS,
		.smp_window = LF_SMP_WINDOW,
		.vf = { .ebb_perms = VF_DEFAULT_PERMS, .seed = 1 },
		.weight = 1,
		.gpus_per_host = 8,
		.restart = 60,
		.repair = 3600,
		.checkpoint = 3600,
	};
	const struct cmd *cmd = NULL;
	const struct cli_opt *op;
	struct pr_fail fail = { NULL, NULL };
	struct cli_parser p;
	const char *bad;
	char err[512];
	int c, ret, npos;
	size_t i;

	cli_parser_init(&p, opts, NOPTS);
	o.json = wants_json(argc, argv);
	o.fail = &fail;
	if (argc < 2)
		return usage_error(&o, "no command given");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return PR_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		cli_version(stdout, PROG);
		return PR_OK;
	}
	if (argc == 3 && !strcmp(argv[1], "--expand-hostlist"))
		return expand_hostlist(argv[2]);
	for (i = 0; i < NCMDS; i++)
		if (!strcmp(argv[1], cmds[i].name))
			cmd = &cmds[i];
	if (!cmd)
		return usage_error(&o, "unknown command '%s'", argv[1]);

	/* argv[1] plays argv[0]: getopt starts after the command. */
	while ((c = cli_next(&p, argc - 1, argv + 1, &op, &bad)) != -1) {
		if (c == '?')
			return usage_error(&o, "unknown option '%s'", bad);
		if (c == ':')
			return usage_error(&o, "option '%s' needs an argument",
					   bad);
		if (c == 'h') {
			usage(stdout);
			return PR_OK;
		}
		if (c == 'V') {
			cli_version(stdout, PROG);
			return PR_OK;
		}
		if (!(op->mask & cmd->bit))
			return usage_error(&o, "--%s is not an option of %s",
					   op->name, cmd->name);
		if ((ret = set_opt(&o, c, optarg)))
			return ret;
	}
	npos = argc - 1 - optind;
	if (cmd->npos >= 0 ? npos != cmd->npos : npos < -cmd->npos)
		return usage_error(&o, "%s: wrong number of arguments", cmd->name);
	o.args = argv + 1 + optind;
	o.nargs = npos;
	if (cmd->npos > 0)
		o.dir = argv[1 + optind];
	if (cmd->bit == C_ROUTE && !o.net)
		return usage_error(&o, "%s needs --net FILE", cmd->name);
	if (cmd->bit == C_SIM && !o.jobs)
		return usage_error(&o, "%s needs --jobs FILE", cmd->name);
	if ((cmd->bit & (C_SIM | C_MAP)) && o.net && o.dump)
		return usage_error(&o, "%s takes --net or --dump, not both",
				   cmd->name);
	if (cmd->bit == C_MAP && (ret = map_opts(&o)))
		return ret;
	if (cmd->bit == C_REPLAY && (!o.trace || !o.policy || !o.net == !o.nodes))
		return usage_error(&o, "replay needs --trace FILE, --policy LIST and --net FILE or --nodes FILE");
	if (cmd->bit == C_REPLAY && o.nodes && (o.comm_share > 0 || o.gang_wait))
		return usage_error(&o, "replay --comm-share and --gang-wait need --net FILE (the flow model), not --nodes");
	err[0] = '\0';
	if ((cmd->bit & (C_ALLOC | C_PLACE | C_SUBMIT)) && !o.gpus &&
	    !((cmd->bit & C_ALLOC) && (o.milli || o.rdma)))
		return usage_error(&o, "%s needs --gpus N%s", cmd->name,
				   cmd->bit & C_ALLOC ? ", --milli M or --rdma P" : "");
	if ((cmd->bit & (C_PLACE | C_SUBMIT)) && !o.per_host)
		return usage_error(&o, "%s needs --per-host G", cmd->name);
	if (cmd->bit == C_JOBS && (!o.job != !o.hosts || (o.job && o.end_job)))
		return usage_error(&o, "jobs takes --start JOB --hosts EXPR, or --end JOB");
	if (!o.socket && (cmd->bit & C_POOLD))
		o.socket = getenv("GPUAWARE_POOL_SOCKET");
	if (!o.socket)
		o.socket = cmd->bit & C_POOLD ? POOL_SOCKET_DEFAULT :
					       PR_SM_SOCKET;
	o.peer = cmd->bit & C_POOLD ? CLI_PEER_POOLD : CLI_PEER_SM;
	if (!o.munge)
		o.munge = getenv("GPUAWARE_MUNGE_SOCKET");
	if (!o.format && cmd->bit == C_TOPO)
		o.format = "slurm-tree";
	ret = cmd->run(&o, err, sizeof(err));
	if (ret == PR_OK || !err[0])
		return ret;
	/* refusals (PR_BAD) came as ibpoold's or the SM's reply with --json */
	if (o.json && ret == PR_ERR)
		pr_print_error(fail.code ? fail.code : "failed", err,
			       fail.hint);
	else if (fail.hint)
		fprintf(stderr, PROG ": %s; %s\n", err, fail.hint);
	else
		fprintf(stderr, PROG ": %s\n", err);
	return ret;
}
