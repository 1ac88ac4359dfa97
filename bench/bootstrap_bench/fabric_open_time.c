/* The floor under railyard-bootstrap-bench: how long after its start a
 * process that does nothing but what libfabric itself costs is ready. It
 * opens one RDM endpoint per provider named on the command line (default
 * "net" and "shm", what a rank of a one-host job opens: a rail and
 * the host rail), enabled and bound to an address vector and a completion
 * queue, and prints one result line. Several copies started at once (for
 * example by railyard-run -n 8) show what the machine spends on libfabric
 * alone; scripts/bootstrap-bench.sh reports the slowest copy. It exchanges
 * nothing: a job's bootstrap costs more than this, never less. */
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "process_age.h"

enum { kMaxProviders = 8 };

struct Opened {
  struct fi_info* info;
  struct fid_fabric* fabric;
  struct fid_domain* domain;
  struct fid_av* av;
  struct fid_cq* cq;
  struct fid_ep* ep;
};

static double now_ms(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
}

static int failed(const char* call, const char* provider, int rc) {
  fprintf(stderr, "railyard-fabric-open-time: %s for provider '%s' failed: %s (%d)\n", call,
          provider, fi_strerror(-rc), rc);
  return 1;
}

/* Opens what a rail opens, in the same order; 0 or 1 after a message. */
static int open_endpoint(const char* provider, struct Opened* out) {
  struct fi_info* hints = fi_allocinfo();
  if (hints == NULL) {
    return failed("fi_allocinfo", provider, -FI_ENOMEM);
  }
  hints->fabric_attr->prov_name = strdup(provider);
  hints->ep_attr->type = FI_EP_RDM;
  hints->caps = FI_TAGGED | FI_MSG | FI_RMA;
  hints->domain_attr->av_type = FI_AV_TABLE;
  hints->domain_attr->threading = FI_THREAD_DOMAIN;
  int rc =
      fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION), NULL, NULL, 0, hints, &out->info);
  fi_freeinfo(hints);
  if (rc != 0) {
    return failed("fi_getinfo", provider, rc);
  }
  struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
  struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_TAGGED, .wait_obj = FI_WAIT_NONE};
  if ((rc = fi_fabric(out->info->fabric_attr, &out->fabric, NULL)) != 0) {
    return failed("fi_fabric", provider, rc);
  }
  if ((rc = fi_domain(out->fabric, out->info, &out->domain, NULL)) != 0) {
    return failed("fi_domain", provider, rc);
  }
  if ((rc = fi_av_open(out->domain, &av_attr, &out->av, NULL)) != 0) {
    return failed("fi_av_open", provider, rc);
  }
  if ((rc = fi_cq_open(out->domain, &cq_attr, &out->cq, NULL)) != 0) {
    return failed("fi_cq_open", provider, rc);
  }
  if ((rc = fi_endpoint(out->domain, out->info, &out->ep, NULL)) != 0) {
    return failed("fi_endpoint", provider, rc);
  }
  if ((rc = fi_ep_bind(out->ep, &out->av->fid, 0)) != 0) {
    return failed("fi_ep_bind (address vector)", provider, rc);
  }
  if ((rc = fi_ep_bind(out->ep, &out->cq->fid, FI_TRANSMIT | FI_RECV)) != 0) {
    return failed("fi_ep_bind (completion queue)", provider, rc);
  }
  if ((rc = fi_enable(out->ep)) != 0) {
    return failed("fi_enable", provider, rc);
  }
  return 0;
}

static void close_endpoint(struct Opened* opened) {
  struct fid* fids[] = {
      opened->ep ? &opened->ep->fid : NULL,         opened->cq ? &opened->cq->fid : NULL,
      opened->av ? &opened->av->fid : NULL,         opened->domain ? &opened->domain->fid : NULL,
      opened->fabric ? &opened->fabric->fid : NULL,
  };
  for (size_t i = 0; i < sizeof(fids) / sizeof(fids[0]); ++i) {
    if (fids[i] != NULL) {
      (void)fi_close(fids[i]);
    }
  }
  fi_freeinfo(opened->info);
}

int main(int argc, char** argv) {
  const double entered = now_ms();
  const double started = railyard_process_age_ms();
  const char* defaults[] = {"net", "shm"};
  const char* const* providers = argc > 1 ? (const char* const*)(argv + 1) : defaults;
  const int count = argc > 1 ? argc - 1 : 2;
  if (count > kMaxProviders) {
    fprintf(stderr, "railyard-fabric-open-time: %d providers given, expected at most %d\n", count,
            kMaxProviders);
    return 2;
  }
  struct Opened opened[kMaxProviders];
  memset(opened, 0, sizeof(opened));
  int status = 0;
  for (int i = 0; i < count && status == 0; ++i) {
    status = open_endpoint(providers[i], &opened[i]);
  }
  const double open_ms = now_ms() - entered;
  if (status == 0) {
    printf("RESULT label=libfabric ranks=1 ready_after_start_ms=%.1f world_ms=%.1f\n",
           started >= 0 ? started + open_ms : -1, open_ms);
  }
  for (int i = count - 1; i >= 0; --i) {
    close_endpoint(&opened[i]);
  }
  return status;
}
