/* metrics.c - --prom-textfile and --listen for a capture (metrics.h). */
#include "metrics.h"
#include "capture_priv.h"
#include "capture_report.h"
#include "process/procfs.h"
#include "report/prom.h"
#include "report/prom_http.h"
#include "util/error.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static struct ot_prom_opts prom_opts(const struct ot_capture *c, int openmetrics)
{
	struct ot_prom_opts o = {
		.openmetrics = openmetrics, .pid_label = c->o.prom_pid && !c->sinks.nprocs &&
		!c->o.all && !c->o.follow && c->o.npids <= 1, .comm = c->prom.comm,
		.version = OT_VERSION,
		.created_ns = c->prom.created_ns,
	};

	return o;
}

/* The whole file written to a temporary beside it, then renamed over it
 * (lib/util/outfile): a collector never reads half of one. */
static int write_file(struct ot_capture *c, const struct ot_report *r)
{
	struct ot_prom_opts o = prom_opts(c, 0);
	FILE *f = ot_outfile_next(c->prom.file);
	int err = 0, cerr;

	if (!f) {
		err = errno;
	} else {
		errno = 0;	/* a short write may leave none */
		if (ot_report_prom(f, r, &o))
			err = errno ? errno : EIO;
		cerr = -ot_outfile_commit(c->prom.file);
		err = err ? err : cerr;
	}
	if (err && !c->prom.failed)
		ot_error_errno(err, "cannot write %s", c->o.prom_textfile);
	c->prom.failed |= !!err;
	return err ? -1 : 0;
}

/* Both formats rendered and handed to the server. */
static void publish(struct ot_capture *c, const struct ot_report *r)
{
	char *text = NULL, *om = NULL;
	size_t tlen = 0, omlen = 0;
	struct ot_prom_opts o = prom_opts(c, 0);
	FILE *f = open_memstream(&text, &tlen);

	if (f) {
		ot_report_prom(f, r, &o);
		fclose(f);
	}
	o.openmetrics = 1;
	if ((f = open_memstream(&om, &omlen))) {
		ot_report_prom(f, r, &o);
		fclose(f);
	}
	if (text && om)
		ot_prom_http_publish(c->prom.http, text, tlen, om, omlen);
	else {
		free(text);
		free(om);
	}
}

int ot_metrics_open(struct ot_capture *c)
{
	/* Its directory tried now (a temporary made and removed), the file
	 * itself not touched before the capture's first version. */
	if (c->o.prom_textfile && ot_outfile_replacing(c->o.prom_textfile, &c->prom.file))
		return -1;
	if (c->o.listen) {
		if (ot_prom_http_start(c->o.listen, &c->prom.http))
			return -1;
		ot_note("serving metrics at %s", ot_prom_http_url(c->prom.http));
	}
	return 0;
}

void ot_metrics_start(struct ot_capture *c)
{
	struct timespec ts;

	if (!c->o.prom_textfile && !c->prom.http)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	c->prom.created_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (c->o.prom_pid && ot_proc_comm(c->target.pid, c->prom.comm, sizeof(c->prom.comm)))
		snprintf(c->prom.comm, sizeof(c->prom.comm), "?");
	ot_metrics_tick(c);
	if (c->prom.http) {
		struct ot_report r;

		ot_capture_snapshot(c, &r);
		publish(c, &r);
		ot_capture_snapshot_free(&r);
	}
}

int ot_metrics_fd(const struct ot_capture *c)
{
	return c->prom.http ? ot_prom_http_fd(c->prom.http) : -1;
}

void ot_metrics_serve(struct ot_capture *c)
{
	struct ot_report r;

	if (!c->prom.http || !ot_prom_http_wanted(c->prom.http))
		return;
	ot_capture_snapshot(c, &r);
	publish(c, &r);
	ot_capture_snapshot_free(&r);
}

void ot_metrics_tick(struct ot_capture *c)
{
	struct ot_report r;

	if (!c->o.prom_textfile)
		return;
	ot_capture_snapshot(c, &r);
	write_file(c, &r);
	ot_capture_snapshot_free(&r);
}

int ot_metrics_end(struct ot_capture *c)
{
	int ret = 0;

	if (c->o.prom_textfile) {
		c->prom.failed = 0;	/* said again if the last write fails too */
		ret = write_file(c, &c->rep);
	}
	if (c->prom.http) {
		publish(c, &c->rep);
		ot_prom_http_stop(c->prom.http);
		c->prom.http = NULL;
	}
	return ret;
}

void ot_metrics_close(struct ot_capture *c)
{
	ot_prom_http_stop(c->prom.http);
	c->prom.http = NULL;
	ot_outfile_close(c->prom.file, 0);
	c->prom.file = NULL;
}
