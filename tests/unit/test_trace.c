// SPDX-License-Identifier: MIT
/*
 * Job traces: each reader on small inline files with known jobs and
 * known errors, the Philly-shaped generator's determinism, load and mix,
 * the plain CSV round trip and the statistics.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tu.h"
#include "tools/lib/pool/trace.h"

/* Read text as a trace called "t.csv"; returns trc_read_stream()'s. */
static int read_text(const char *text, enum trc_format fmt, uint32_t flags,
		     struct trc_trace *t, char *err, size_t len)
{
	struct trc_read_opts o = { .fmt = fmt, .flags = flags };
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	int ret;

	CU_ASSERT_PTR_NOT_NULL_FATAL(in);
	err[0] = '\0';
	ret = trc_read_stream(in, "t.csv", &o, t, err, len);
	fclose(in);
	return ret;
}

/* text must fail with -EINVAL and a message holding msg. */
static void expect_err(const char *text, enum trc_format fmt,
		       const char *msg)
{
	struct trc_trace t;
	char err[256];

	CU_ASSERT_EQUAL(read_text(text, fmt, 0, &t, err, sizeof(err)),
			-EINVAL);
	if (!strstr(err, msg))
		fprintf(stderr, "\nwant '%s' in '%s'\n", msg, err);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, msg));
	trc_free(&t);
}

static void test_plain(void)
{
	const char *text =
		"# a comment\n"
		"submit,gpus,runtime,user,class,limit,milli\n"
		"100,4,600,alice,LS,1800,\n"
		"\n"
		"40.5,1,30,bob,BE,0,250\r\n"
		"100,2,60,alice,LS,,\n"
		"70,0,5,carol,BE,0,\n";
	struct trc_trace t;
	const struct trc_job *j;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(read_text(text, TRC_FMT_AUTO, 0, &t, err,
					sizeof(err)), 0);
	CU_ASSERT_EQUAL(t.fmt, TRC_FMT_PLAIN);
	CU_ASSERT_EQUAL(t.rs.rows, 4);
	CU_ASSERT_EQUAL(t.rs.skipped[TRC_SKIP_NO_GPU], 1);
	CU_ASSERT_EQUAL_FATAL(t.njobs, 3);
	j = t.jobs;
	/* sorted by submit, counted from the first; ties in file order */
	CU_ASSERT_DOUBLE_EQUAL(j[0].submit, 0, 1e-9);
	CU_ASSERT_EQUAL(j[0].gpus, 1);
	CU_ASSERT_EQUAL(j[0].milli, 250);
	CU_ASSERT_STRING_EQUAL(trc_str(&t, j[0].user), "bob");
	CU_ASSERT_STRING_EQUAL(trc_str(&t, j[0].cls), "BE");
	CU_ASSERT_EQUAL(j[0].id, 2);
	CU_ASSERT_DOUBLE_EQUAL(j[1].submit, 59.5, 1e-9);
	CU_ASSERT_EQUAL(j[1].gpus, 4);
	CU_ASSERT_DOUBLE_EQUAL(j[1].runtime, 600, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(j[1].limit, 1800, 1e-9);
	CU_ASSERT_EQUAL(j[1].milli, 1000);
	CU_ASSERT_EQUAL(j[1].id, 1);
	CU_ASSERT_EQUAL(j[2].gpus, 2);
	CU_ASSERT_DOUBLE_EQUAL(j[2].limit, 0, 1e-9);
	/* one string each, interned */
	CU_ASSERT_EQUAL(j[1].user, j[2].user);
	CU_ASSERT_EQUAL(j[1].name, 0);
	CU_ASSERT_EQUAL(j[1].hosts, 0);
	trc_free(&t);
}

static void test_plain_errors(void)
{
	char wide[256] = "submit,gpus,runtime\n";
	int i;

	for (i = 0; i < 70; i++)
		strcat(wide, "1,");
	strcat(wide, "1\n");
	expect_err(wide, TRC_FMT_AUTO, "t.csv:2: more than 64 fields");
	expect_err("submit,gpus,runtime\n1,2,x\n", TRC_FMT_AUTO,
		   "t.csv:2: runtime: 'x' is not a number >= 0");
	expect_err("submit,gpus,runtime\n1,2,3\n4,5\n", TRC_FMT_AUTO,
		   "t.csv:3: 2 fields, the header has 3");
	expect_err("submit,gpus,runtime\n1,2.5,3\n", TRC_FMT_AUTO,
		   "t.csv:2: gpus: '2.5' is not a whole number");
	expect_err("submit,gpus,runtime\n-1,2,3\n", TRC_FMT_AUTO,
		   "t.csv:2: submit: '-1' is not a number >= 0");
	expect_err("submit,gpus,runtime,milli\n1,2,3,500\n", TRC_FMT_AUTO,
		   "t.csv:2: milli 500 < 1000 needs gpus 1, not 2");
	expect_err("submit,gpus,runtime,milli\n1,1,3,0\n", TRC_FMT_AUTO,
		   "t.csv:2: milli: '0' is not 1-1000");
	expect_err("submit,gpus,runtime,hosts,per_host\n1,16,3,3,8\n",
		   TRC_FMT_AUTO, "t.csv:2: hosts 3 x per_host 8 is not gpus 16");
	expect_err("submit,gpus,runtime,usr\n1,1,3,a\n", TRC_FMT_AUTO,
		   "t.csv:1: unknown column 'usr'");
	expect_err("submit,gpus,runtime,gpus\n", TRC_FMT_AUTO,
		   "t.csv:1: column 'gpus' twice");
	expect_err("when,size\n1,2\n", TRC_FMT_AUTO,
		   "t.csv:1: unknown trace format");
	expect_err("", TRC_FMT_AUTO, "t.csv: empty: no header line");
	expect_err("submit,gpus,runtime\n1,1,nan\n", TRC_FMT_AUTO,
		   "t.csv:2: runtime: 'nan' is not a number >= 0");
	/* a forced format names the column it misses */
	expect_err("submit,gpus,runtime\n", TRC_FMT_ALI2023,
		   "t.csv:1: alibaba2023 trace without a 'num_gpu' column");
}

#define POD_HEAD "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"

static void test_ali2023(void)
{
	const char *text = POD_HEAD
		"openb-pod-0007,12000,16384,1,1000,,LS,Running,1000,5000,1000\n"
		"openb-pod-0008,6000,12288,1,460,,BE,Succeeded,1200,1500,1300\n"
		"openb-pod-0009,6000,12288,8,1000,,Burstable,Failed,1100,1900,1150\n"
		"openb-pod-0010,6000,12288,2,1000,,BE,Pending,1300,1400,\n"
		"openb-pod-0011,6000,12288,0,0,,LS,Running,900,5000,900\n";
	struct trc_trace t;
	const struct trc_job *j;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(read_text(text, TRC_FMT_AUTO, 0, &t, err,
					sizeof(err)), 0);
	CU_ASSERT_EQUAL(t.fmt, TRC_FMT_ALI2023);
	CU_ASSERT_EQUAL(t.rs.rows, 5);
	CU_ASSERT_EQUAL(t.rs.skipped[TRC_SKIP_UNSCHEDULED], 1);
	CU_ASSERT_EQUAL(t.rs.skipped[TRC_SKIP_NO_GPU], 1);
	CU_ASSERT_EQUAL(t.rs.censored, 1);
	CU_ASSERT_EQUAL_FATAL(t.njobs, 3);
	j = t.jobs;
	/* pod 7: still running, runtime to its deletion time, censored */
	CU_ASSERT_EQUAL(j[0].id, 7);
	CU_ASSERT_DOUBLE_EQUAL(j[0].submit, 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(j[0].runtime, 4000, 1e-9);
	CU_ASSERT_EQUAL(j[0].flags, TRC_JOB_CENSORED);
	CU_ASSERT_STRING_EQUAL(trc_str(&t, j[0].cls), "LS");
	/* pod 9: 8 GPUs on one host, ran from scheduled to deletion */
	CU_ASSERT_EQUAL(j[1].id, 9);
	CU_ASSERT_DOUBLE_EQUAL(j[1].submit, 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(j[1].runtime, 750, 1e-9);
	CU_ASSERT_EQUAL(j[1].gpus, 8);
	CU_ASSERT_EQUAL(j[1].hosts, 1);
	CU_ASSERT_EQUAL(j[1].per_host, 8);
	CU_ASSERT_EQUAL(j[1].flags, 0);
	CU_ASSERT_STRING_EQUAL(trc_str(&t, j[1].cls), "Burstable");
	/* pod 8: 460 milli-GPUs of one GPU */
	CU_ASSERT_EQUAL(j[2].gpus, 1);
	CU_ASSERT_EQUAL(j[2].milli, 460);
	CU_ASSERT_DOUBLE_EQUAL(j[2].runtime, 200, 1e-9);
	CU_ASSERT_EQUAL(j[2].cpu, 6000);
	CU_ASSERT_EQUAL(j[2].mem, 12288);
	CU_ASSERT_EQUAL(j[2].spec, 0);
	trc_free(&t);

	/* every pod for FGD's packing measure: pod 11 asks CPU and memory
	 * only, pod 10 never ran (run time 0) */
	CU_ASSERT_EQUAL_FATAL(read_text(text, TRC_FMT_AUTO, TRC_OPT_ALL_PODS,
					&t, err, sizeof(err)), 0);
	CU_ASSERT_EQUAL(t.rs.skipped[TRC_SKIP_UNSCHEDULED], 0);
	CU_ASSERT_EQUAL(t.rs.skipped[TRC_SKIP_NO_GPU], 0);
	CU_ASSERT_EQUAL_FATAL(t.njobs, 5);
	j = t.jobs;
	CU_ASSERT_EQUAL(j[0].id, 11);
	CU_ASSERT_EQUAL(j[0].gpus, 0);
	CU_ASSERT_EQUAL(j[0].cpu, 6000);
	CU_ASSERT_EQUAL(j[4].id, 10);
	CU_ASSERT_EQUAL(j[4].flags, TRC_JOB_UNSCHEDULED);
	CU_ASSERT_DOUBLE_EQUAL(j[4].runtime, 0, 1e-9);
	trc_free(&t);

	CU_ASSERT_EQUAL_FATAL(read_text(POD_HEAD "p,1,1,1,1000,V100M16|V100M32,LS,Running,0,10,0\n",
					TRC_FMT_AUTO, 0, &t, err,
					sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(trc_str(&t, t.jobs[0].spec), "V100M16|V100M32");
	trc_free(&t);

	expect_err(POD_HEAD "p,1,1,2,500,,LS,Running,0,10,0\n", TRC_FMT_AUTO,
		   "t.csv:2: gpu_milli 500 < 1000 needs num_gpu 1, not 2");
	expect_err(POD_HEAD "p,1,1,1,1000,,LS,Running,5,10,3\n", TRC_FMT_AUTO,
		   "t.csv:2: times out of order: created 5, scheduled 3, deleted 10");
	expect_err(POD_HEAD "p,1,1,1,1000,,LS,Running,0,,0\n", TRC_FMT_AUTO,
		   "t.csv:2: deletion time missing");
	expect_err(POD_HEAD "p,1,1,1,2000,,LS,Running,0,5,0\n", TRC_FMT_AUTO,
		   "t.csv:2: gpu_milli: '2000' is not a whole number 0-1000");
}

#define INST_HEAD "instance_sn,role,app_name,cpu_request,cpu_limit,gpu_request,gpu_limit,rdma_request,rdma_limit,memory_request,memory_limit,disk_request,disk_limit,max_instance_per_node,creation_time,scheduled_time,deletion_time\n"

static const char ali2025[] = INST_HEAD
	/* before the window and past it: no times */
	"instance_0,HN,app_0,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,,,\n"
	/* before the window, ended at 500 */
	"instance_1,CN,app_1,64,64,0,0,1,1,320.0,320.0,255.0,300.0,-1,,,500.0\n"
	/* in the window */
	"instance_2,HN,app_0,12,12,1,1,50,50,120.0,120.0,640.0,800.0,8,610.0,683.0,1683.0\n"
	/* from the window into the time after it */
	"instance_3,CN,app_1,64,64,0,0,100,100,320.0,320.0,255.0,300.0,-1,475.0,623.0,\n"
	/* the window's end: the latest time the trace knows */
	"instance_4,HN,app_2,12,12,1,1,25,25,120.0,120.0,640.0,800.0,8,700.0,700.0,2000.0\n";

static void test_ali2025(void)
{
	struct trc_trace t;
	const struct trc_job *j;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(read_text(ali2025, TRC_FMT_AUTO, 0, &t, err,
					sizeof(err)), 0);
	CU_ASSERT_EQUAL(t.fmt, TRC_FMT_ALI2025);
	CU_ASSERT_EQUAL(t.rs.rows, 5);
	CU_ASSERT_EQUAL(t.rs.skipped[TRC_SKIP_BEFORE_WINDOW], 2);
	CU_ASSERT_EQUAL_FATAL(t.njobs, 3);
	j = t.jobs;
	/* instance 3: censored at the window's end, 2000 */
	CU_ASSERT_EQUAL(j[0].id, 3);
	CU_ASSERT_DOUBLE_EQUAL(j[0].submit, 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(j[0].runtime, 2000 - 623, 1e-9);
	CU_ASSERT_EQUAL(j[0].flags, TRC_JOB_CENSORED | TRC_JOB_CN);
	CU_ASSERT_EQUAL(j[0].gpus, 0);
	CU_ASSERT_EQUAL(j[0].rdma, 100);
	CU_ASSERT_STRING_EQUAL(trc_str(&t, j[0].name), "app_1");
	CU_ASSERT_EQUAL(j[1].id, 2);
	CU_ASSERT_DOUBLE_EQUAL(j[1].submit, 135, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(j[1].runtime, 1000, 1e-9);
	CU_ASSERT_EQUAL(j[1].gpus, 1);
	CU_ASSERT_EQUAL(j[1].per_host, 1);
	CU_ASSERT_EQUAL(j[1].rdma, 50);
	CU_ASSERT_EQUAL(j[1].flags, 0);
	CU_ASSERT_EQUAL(j[2].id, 4);
	trc_free(&t);

	/* kept: the window starts at its earliest time, 500 */
	CU_ASSERT_EQUAL_FATAL(read_text(ali2025, TRC_FMT_AUTO,
					TRC_OPT_KEEP_PRESENT, &t, err,
					sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(t.njobs, 5);
	CU_ASSERT_EQUAL(t.rs.present, 2);
	CU_ASSERT_EQUAL(t.rs.censored, 2);
	j = t.jobs;
	CU_ASSERT_EQUAL(j[0].id, 0);
	CU_ASSERT_DOUBLE_EQUAL(j[0].runtime, 2000 - 475, 1e-9);
	CU_ASSERT_EQUAL(j[0].flags, TRC_JOB_PRESENT | TRC_JOB_CENSORED);
	CU_ASSERT_EQUAL(j[1].id, 1);
	CU_ASSERT_DOUBLE_EQUAL(j[1].runtime, 500 - 475, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(j[2].submit, 0, 1e-9);	/* instance 3 */
	trc_free(&t);

	/* GPU only: the CPU hosts' RDMA-only requests are counted out */
	CU_ASSERT_EQUAL_FATAL(read_text(ali2025, TRC_FMT_ALI2025,
					TRC_OPT_GPU_ONLY, &t, err,
					sizeof(err)), 0);
	CU_ASSERT_EQUAL(t.njobs, 2);
	CU_ASSERT_EQUAL(t.rs.skipped[TRC_SKIP_GPU_ONLY], 2);
	CU_ASSERT_EQUAL(t.rs.skipped[TRC_SKIP_BEFORE_WINDOW], 1);
	trc_free(&t);

	expect_err(INST_HEAD "i,XN,a,1,1,1,1,1,1,1,1,1,1,1,1,2,3\n",
		   TRC_FMT_AUTO, "t.csv:2: role: 'XN' is not HN or CN");
	expect_err(INST_HEAD "i,HN,a,1,1,1,1,101,1,1,1,1,1,1,1,2,3\n",
		   TRC_FMT_AUTO,
		   "t.csv:2: rdma_request: '101' is not a whole number 0-100");
	expect_err(INST_HEAD "i,HN,a,1,1,1,1,1,1,1,1,1,1,1,,2,3\n",
		   TRC_FMT_AUTO,
		   "t.csv:2: scheduled time without a creation time");
	expect_err(INST_HEAD "i,HN,a,1,1,1,1,1,1,1,1,1,1,1,1,2,soon\n",
		   TRC_FMT_AUTO,
		   "t.csv:2: deletion_time: 'soon' is not a number >= 0");
}

static void test_nodes(void)
{
	const char *text = "sn,cpu_milli,memory_mib,gpu,model\n"
			   "openb-node-0000,64000,262144,2,P100\n"
			   "openb-node-0001,96000,786432,8,G2\n"
			   "openb-node-0002,96000,786432,0,\n";
	struct trc_cluster c;
	char err[256];
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	CU_ASSERT_EQUAL_FATAL(trc_read_nodes_stream(in, "n.csv", &c, err,
						    sizeof(err)), 0);
	fclose(in);
	CU_ASSERT_EQUAL_FATAL(c.n, 3);
	CU_ASSERT_EQUAL(c.gpus, 10);
	CU_ASSERT_STRING_EQUAL(c.nodes[1].name, "openb-node-0001");
	CU_ASSERT_STRING_EQUAL(c.nodes[1].model, "G2");
	CU_ASSERT_EQUAL(c.nodes[1].gpus, 8);
	CU_ASSERT_EQUAL(c.nodes[2].gpus, 0);
	CU_ASSERT_EQUAL(c.nodes[1].cpu, 96000);
	CU_ASSERT_EQUAL(c.nodes[1].mem, 786432);
	/* models numbered from 1 as first seen; none is 0 */
	CU_ASSERT_EQUAL_FATAL(c.nmodels, 2);
	CU_ASSERT_EQUAL(c.nodes[0].mi, 1);
	CU_ASSERT_EQUAL(c.nodes[1].mi, 2);
	CU_ASSERT_EQUAL(c.nodes[2].mi, 0);
	CU_ASSERT_EQUAL(trc_spec_mask(&c, ""), 0);
	CU_ASSERT_EQUAL(trc_spec_mask(&c, "G2"), 1u << 2);
	CU_ASSERT_EQUAL(trc_spec_mask(&c, "P100|G2"), 1u << 1 | 1u << 2);
	CU_ASSERT_EQUAL(trc_spec_mask(&c, "A100|G2"), 1u << 2);
	CU_ASSERT_EQUAL(trc_spec_mask(&c, "A100"), 1);
	CU_ASSERT_EQUAL(trc_spec_mask(&c, "G"), 1);
	trc_cluster_free(&c);

	text = "sn,gpu\nn1,2\nn2,two\n";
	in = fmemopen((void *)text, strlen(text), "r");
	CU_ASSERT_EQUAL(trc_read_nodes_stream(in, "n.csv", &c, err,
					      sizeof(err)), -EINVAL);
	fclose(in);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "n.csv:3: gpu: 'two' is not a whole number"));
	trc_cluster_free(&c);
	CU_ASSERT_EQUAL(trc_read_nodes("/nonexistent/nodes.csv", &c, err,
				       sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/nodes.csv: "));
}

static void test_detect(void)
{
	enum trc_format f;

	CU_ASSERT_EQUAL(trc_detect("submit,gpus,runtime"), TRC_FMT_PLAIN);
	CU_ASSERT_EQUAL(trc_detect("gpus,runtime,submit,user\r\n"),
			TRC_FMT_PLAIN);
	CU_ASSERT_EQUAL(trc_detect(POD_HEAD), TRC_FMT_ALI2023);
	CU_ASSERT_EQUAL(trc_detect(INST_HEAD), TRC_FMT_ALI2025);
	CU_ASSERT_EQUAL(trc_detect("runtime"), TRC_FMT_AUTO);
	CU_ASSERT_EQUAL(trc_format_parse("alibaba2025", &f), 0);
	CU_ASSERT_EQUAL(f, TRC_FMT_ALI2025);
	CU_ASSERT_EQUAL(trc_format_parse("csv", &f), -1);
	CU_ASSERT_STRING_EQUAL(trc_format_name(TRC_FMT_PLAIN), "plain");
	CU_ASSERT_STRING_EQUAL(trc_skip_name(TRC_SKIP_BEFORE_WINDOW),
			       "before_window");
}

static char rt_path[64];

static void rm_runtimes(void)
{
	unlink(rt_path);
}

/*
 * A run-time file: 1000 run times 1..1000 s (mean 500.5) and two zeros,
 * which the generator leaves out.  Returns its path (static).
 */
static const char *runtimes_file(void)
{
	FILE *f;
	int fd, i;

	if (rt_path[0])
		return rt_path;
	strcpy(rt_path, "/tmp/tu-runtimes-XXXXXX");
	fd = mkstemp(rt_path);
	CU_ASSERT_FATAL(fd >= 0);
	atexit(rm_runtimes);
	f = fdopen(fd, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "runtime\n0.0\n");
	for (i = 1; i <= 1000; i++)
		fprintf(f, "%d.0\n", i);
	fprintf(f, "0.0\n");
	fclose(f);
	return rt_path;
}

static void gen(struct trc_trace *t, size_t jobs, double load, uint64_t seed)
{
	struct trc_gen_opts o = {
		.jobs = jobs, .load = load, .gpus = 512, .seed = seed,
		.runtimes = runtimes_file(),
	};
	char err[256];

	CU_ASSERT_EQUAL_FATAL(trc_gen_philly(&o, t, err, sizeof(err)), 0);
}

static bool same_jobs(const struct trc_trace *a, const struct trc_trace *b)
{
	size_t i;

	if (a->njobs != b->njobs)
		return false;
	for (i = 0; i < a->njobs; i++) {
		const struct trc_job *x = &a->jobs[i], *y = &b->jobs[i];

		if (x->submit != y->submit || x->runtime != y->runtime ||
		    x->limit != y->limit || x->gpus != y->gpus ||
		    x->milli != y->milli || x->hosts != y->hosts ||
		    x->per_host != y->per_host || x->rdma != y->rdma ||
		    x->id != y->id || x->flags != y->flags ||
		    x->cpu != y->cpu || x->mem != y->mem ||
		    strcmp(trc_str(a, x->spec), trc_str(b, y->spec)) ||
		    strcmp(trc_str(a, x->user), trc_str(b, y->user)) ||
		    strcmp(trc_str(a, x->name), trc_str(b, y->name)) ||
		    strcmp(trc_str(a, x->cls), trc_str(b, y->cls)))
			return false;
	}
	return true;
}

static void test_gen_deterministic(void)
{
	struct trc_trace a, b, c;

	gen(&a, 2000, 0.9, 7);
	gen(&b, 2000, 0.9, 7);
	gen(&c, 2000, 0.9, 8);
	CU_ASSERT(same_jobs(&a, &b));
	CU_ASSERT(!same_jobs(&a, &c));
	trc_free(&a);
	trc_free(&b);
	trc_free(&c);
}

/* The mix's share of size g, and its mean. */
static double mix_share(uint32_t g, double *mean)
{
	size_t n, i;
	const struct trc_mix *m = trc_philly_mix(&n);
	double share = 0, sum = 0;

	*mean = 0;
	for (i = 0; i < n; i++) {
		sum += m[i].share;
		*mean += m[i].gpus * m[i].share;
		if (m[i].gpus == g)
			share = m[i].share;
	}
	*mean /= sum;
	return share / sum;
}

static void test_gen_shape(void)
{
	static const uint32_t sizes[] = { 1, 2, 4, 8 };
	struct trc_trace t;
	struct trc_stats s;
	size_t i, n[129] = { 0 }, u1 = 0, multi = 0;
	double mean, gs = 0, hn = 0;
	bool ok = true;

	mix_share(1, &mean);
	/* the published Philly mean (docs/traces.md) */
	CU_ASSERT_DOUBLE_EQUAL(mean, 1.93, 0.001);
	gen(&t, 50000, 1.05, 1);
	for (i = 0; i < t.njobs; i++) {
		const struct trc_job *j = &t.jobs[i];

		ok &= j->gpus >= 1 && j->gpus <= 128 && j->milli == 1000;
		ok &= j->runtime >= 1 && j->runtime <= 1000 &&
		      j->runtime == floor(j->runtime);
		ok &= j->limit >= 2 * j->runtime - 0.001 &&
		      j->limit <= 5 * j->runtime + 0.001;
		ok &= j->gpus > 8 ? j->hosts * 8 == j->gpus && j->per_host == 8
				  : !j->hosts && !j->per_host;
		ok &= i == 0 || j->submit >= t.jobs[i - 1].submit;
		ok &= j->id == i + 1;
		n[j->gpus]++;
		multi += j->hosts > 1;
		u1 += !strcmp(trc_str(&t, j->user), "u1");
		gs += j->gpus * j->runtime;
	}
	CU_ASSERT(ok);
	/* the load is exact for the drawn jobs, to the millisecond */
	CU_ASSERT_DOUBLE_EQUAL(gs / (512 * t.jobs[t.njobs - 1].submit), 1.05,
			       1e-6);
	CU_ASSERT_EQUAL_FATAL(trc_stats(&t, 512, &s), 0);
	CU_ASSERT_DOUBLE_EQUAL(s.load, 1.05, 1e-6);
	/* the mix within 4 standard deviations of 50,000 draws */
	for (i = 0; i < 4; i++) {
		double p = mix_share(sizes[i], &mean);

		CU_ASSERT_DOUBLE_EQUAL(n[sizes[i]] / 50000.0, p,
				       4 * sqrt(p * (1 - p) / 50000));
	}
	CU_ASSERT_DOUBLE_EQUAL(s.gpus_mean, mean, 0.05);
	CU_ASSERT(multi > 0);
	/* run times from the file, zeros left out: mean 500.5 */
	CU_ASSERT_DOUBLE_EQUAL(s.rt_mean, 500.5, 5);
	/* Zipf over 100 users: user 1 submits 1 / H(100) of the jobs */
	for (i = 1; i <= 100; i++)
		hn += 1.0 / i;
	CU_ASSERT_DOUBLE_EQUAL(u1 / 50000.0, 1 / hn, 0.01);
	CU_ASSERT_EQUAL(s.users, 100);
	trc_free(&t);
}

static void test_gen_errors(void)
{
	struct trc_gen_opts o = { .jobs = 1, .load = 1, .gpus = 8,
				  .runtimes = runtimes_file() };
	struct trc_mix mix[] = { { 12, 1 } };
	struct trc_trace t;
	char err[256], path[] = "/tmp/tu-badrt-XXXXXX";
	FILE *f;
	int fd;

	CU_ASSERT_EQUAL(trc_gen_philly(&o, &t, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "--jobs must be 2 or more");
	o.jobs = 10;
	o.load = 0;
	CU_ASSERT_EQUAL(trc_gen_philly(&o, &t, err, sizeof(err)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(err, "--load must be above 0");
	o.load = 1;
	o.mix = mix;
	o.nmix = 1;
	CU_ASSERT_EQUAL(trc_gen_philly(&o, &t, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "bad GPU mix"));
	o.mix = NULL;
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	f = fdopen(fd, "w");
	fprintf(f, "runtime\n10\n-3\n");
	fclose(f);
	o.runtimes = path;
	CU_ASSERT_EQUAL(trc_gen_philly(&o, &t, err, sizeof(err)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, ":3: '-3' is not a run time >= 0"));
	unlink(path);
	o.runtimes = "/nonexistent/runtimes.csv";
	CU_ASSERT_EQUAL(trc_gen_philly(&o, &t, err, sizeof(err)), -ENOENT);
}

/* A custom mix: only gangs of 2 hosts. */
static void test_gen_mix(void)
{
	struct trc_mix mix[] = { { 16, 1 } };
	struct trc_gen_opts o = { .jobs = 100, .load = 0.5, .gpus = 64,
				  .seed = 3, .runtimes = runtimes_file(),
				  .mix = mix, .nmix = 1, .users = 3 };
	struct trc_trace t;
	char err[256];
	size_t i;

	CU_ASSERT_EQUAL_FATAL(trc_gen_philly(&o, &t, err, sizeof(err)), 0);
	for (i = 0; i < t.njobs; i++) {
		CU_ASSERT_EQUAL(t.jobs[i].gpus, 16);
		CU_ASSERT_EQUAL(t.jobs[i].hosts, 2);
		CU_ASSERT(t.jobs[i].user >= 1 && t.jobs[i].user <= 3);
	}
	trc_free(&t);
}

static void test_round_trip(void)
{
	struct trc_trace a, b;
	char *buf, err[256];
	size_t len;
	FILE *out = open_memstream(&buf, &len), *in;

	gen(&a, 3000, 0.8, 11);
	/* a fractional job and an RDMA share survive too */
	a.jobs[5].milli = 300;
	a.jobs[5].gpus = 1;
	a.jobs[5].hosts = a.jobs[5].per_host = 0;
	a.jobs[6].rdma = 25;
	CU_ASSERT_EQUAL_FATAL(trc_write_plain(&a, out), 0);
	fclose(out);
	in = fmemopen(buf, len, "r");
	CU_ASSERT_EQUAL_FATAL(trc_read_stream(in, "rt.csv", NULL, &b, err,
					      sizeof(err)), 0);
	fclose(in);
	CU_ASSERT(same_jobs(&a, &b));
	free(buf);
	trc_free(&b);
	/* a string a plain CSV cannot hold */
	a.jobs[0].user = (uint32_t)trc_intern(&a, "x,y");
	out = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(trc_write_plain(&a, out), -EINVAL);
	fclose(out);
	free(buf);
	trc_free(&a);
}

/*
 * text converted as trace --convert does (every row, flagged) and read
 * back under each reader option gives the jobs text gives under it,
 * skipped for the same reasons.
 */
static void convert_back(const char *text)
{
	static const uint32_t opts[] = { 0, TRC_OPT_ALL_PODS,
		TRC_OPT_KEEP_PRESENT, TRC_OPT_ALL_PODS | TRC_OPT_KEEP_PRESENT };
	struct trc_trace all, a, b;
	char *buf, err[256];
	size_t len, i, k;
	FILE *out = open_memstream(&buf, &len);

	CU_ASSERT_EQUAL_FATAL(read_text(text, TRC_FMT_AUTO, opts[3], &all, err,
					sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(trc_write_plain(&all, out), 0);
	fclose(out);
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		CU_ASSERT_EQUAL_FATAL(read_text(text, TRC_FMT_AUTO, opts[i],
						&a, err, sizeof(err)), 0);
		CU_ASSERT_EQUAL_FATAL(read_text(buf, TRC_FMT_AUTO, opts[i], &b,
						err, sizeof(err)), 0);
		CU_ASSERT_EQUAL(b.fmt, TRC_FMT_PLAIN);
		CU_ASSERT(same_jobs(&a, &b));
		CU_ASSERT_EQUAL(a.rs.censored, b.rs.censored);
		for (k = 0; k < TRC_SKIP_COUNT; k++)
			CU_ASSERT_EQUAL(a.rs.skipped[k], b.rs.skipped[k]);
		trc_free(&a);
		trc_free(&b);
	}
	free(buf);
	trc_free(&all);
}

/* Alibaba pods and instances through a plain CSV: nothing lost. */
static void test_convert(void)
{
	convert_back(POD_HEAD
		"openb-pod-0007,12000,16384,1,1000,V100M16|V100M32,LS,Running,1000,5000,1000\n"
		"openb-pod-0008,6000,12288,1,460,,BE,Succeeded,1200,1500,1300\n"
		"openb-pod-0009,6000,12288,8,1000,P100,Burstable,Failed,1100,1900,1150\n"
		"openb-pod-0010,6000,12288,2,1000,,BE,Pending,1300,1400,\n"
		"openb-pod-0011,6000,12288,0,0,,LS,Running,900,5000,900\n");
	convert_back(ali2025);
}

static void test_stats(void)
{
	const char *text = "submit,gpus,runtime,user,milli\n"
			   "0,1,10,a,500\n"
			   "10,2,20,b,\n"
			   "20,16,30,a,\n"
			   "100,4,1000,,\n";
	struct trc_trace t;
	struct trc_stats s;
	char err[256];

	CU_ASSERT_EQUAL_FATAL(read_text(text, TRC_FMT_AUTO, 0, &t, err,
					sizeof(err)), 0);
	CU_ASSERT_EQUAL_FATAL(trc_stats(&t, 10, &s), 0);
	CU_ASSERT_EQUAL(s.jobs, 4);
	CU_ASSERT_EQUAL(s.fractional, 1);
	CU_ASSERT_EQUAL(s.size_jobs[1], 1);	/* 1 */
	CU_ASSERT_EQUAL(s.size_jobs[2], 1);	/* 2 */
	CU_ASSERT_EQUAL(s.size_jobs[3], 1);	/* 3-4 */
	CU_ASSERT_EQUAL(s.size_jobs[5], 1);	/* 9-16 */
	CU_ASSERT_EQUAL(trc_size_lo(5), 9);
	CU_ASSERT_DOUBLE_EQUAL(s.gpus_mean, (0.5 + 2 + 16 + 4) / 4, 1e-9);
	CU_ASSERT_EQUAL(s.gpus_median, 2);
	CU_ASSERT_EQUAL(s.gpus_max, 16);
	CU_ASSERT_DOUBLE_EQUAL(s.rt_median, 25, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.rt_mean, 265, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.rt_p99, 1000, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.span, 100, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.gpu_seconds, 5 + 40 + 480 + 4000, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(s.load, 4525.0 / (10 * 100), 1e-9);
	CU_ASSERT_EQUAL(s.users, 2);
	CU_ASSERT_EQUAL_FATAL(trc_stats(&t, 0, &s), 0);
	CU_ASSERT_DOUBLE_EQUAL(s.load, 0, 1e-12);
	trc_free(&t);
}

TU_SUITE(trace,
	 { "plain CSV", test_plain },
	 { "plain CSV errors", test_plain_errors },
	 { "Alibaba 2023 pods", test_ali2023 },
	 { "Alibaba 2025 instances", test_ali2025 },
	 { "node list", test_nodes },
	 { "format detection", test_detect },
	 { "generator determinism", test_gen_deterministic },
	 { "generator load, mix, limits, users", test_gen_shape },
	 { "generator errors", test_gen_errors },
	 { "generator custom mix", test_gen_mix },
	 { "plain CSV round trip", test_round_trip },
	 { "Alibaba traces through a plain CSV", test_convert },
	 { "statistics", test_stats })
