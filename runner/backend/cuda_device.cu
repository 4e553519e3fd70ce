/*
 * cuda_device.cu - is there a device, what is it, and how fast is it
 * clocked right now.
 *
 * The probe runs once per process and caches its answer, so every GPU case
 * of a machine without a device is skipped with the same reason at no cost.
 * Current clocks come from NVML, loaded with dlopen() at first use: the
 * library ships with the driver, not the toolkit, and a build machine without
 * a driver must still build and run perfgate.
 */
#include "backend/cuda_api.h"
#include "backend/cuda_check.h"

#include "perfgate/errors.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* ---- the probe ----------------------------------------------------------- */

static int probed;
static int probe_err;
static char probe_reason[512];

int pg_cuda_probe(void)
{
    int count = 0;
    cudaError_t st;

    if (probed) {
        if (probe_err)
            pg_error_set(probe_err, "%s", probe_reason);
        return probe_err;
    }
    probed = 1;
    st = cudaGetDeviceCount(&count);
    if (st == cudaErrorInsufficientDriver) {
        /* What a machine without any NVIDIA driver reports, too. */
        snprintf(probe_reason, sizeof(probe_reason),
                 "no CUDA device (cudaGetDeviceCount: no NVIDIA driver, or one older than CUDA %d.%d)",
                 CUDART_VERSION / 1000, CUDART_VERSION % 1000 / 10);
        (void)cudaGetLastError();
        probe_err = PG_ESKIP;
    } else if (st != cudaSuccess) {
        snprintf(probe_reason, sizeof(probe_reason), "no CUDA device (cudaGetDeviceCount: %s)",
                 cudaGetErrorString(st));
        (void)cudaGetLastError(); /* the failure must not stick to later calls */
        probe_err = PG_ESKIP;
    } else if (count < 1) {
        snprintf(probe_reason, sizeof(probe_reason), "no CUDA device (cudaGetDeviceCount found none)");
        probe_err = PG_ESKIP;
    } else if ((st = cudaSetDevice(0)) != cudaSuccess || (st = cudaFree(0)) != cudaSuccess) {
        /* A device that cannot hold a context is as good as none for timing. */
        snprintf(probe_reason, sizeof(probe_reason), "no CUDA device (device 0 unusable: %s)",
                 cudaGetErrorString(st));
        (void)cudaGetLastError();
        probe_err = PG_ESKIP;
    }
    if (probe_err)
        pg_error_set(probe_err, "%s", probe_reason);
    return probe_err;
}

/* ---- NVML, loaded at run time --------------------------------------------- */

typedef struct nvml_device *nvml_handle; /* nvmlDevice_t */

enum { NVML_OK = 0, NVML_CLOCK_SM_ = 1, NVML_CLOCK_MEM_ = 2, NVML_TEMPERATURE_GPU_ = 0 };

static struct {
    int tried, ok;
    nvml_handle dev;
    int (*get_clock)(nvml_handle, int, unsigned *);
    int (*get_temp)(nvml_handle, int, unsigned *);
    int (*driver_version)(char *, unsigned);
} nvml;

template <typename F> static bool load_sym(void *lib, const char *name, F *out)
{
    void *p = dlsym(lib, name);

    *out = reinterpret_cast<F>(p);
    return p != NULL;
}

/* Opens NVML and finds the handle of CUDA device 0 by its PCI bus id (NVML
 * indices ignore CUDA_VISIBLE_DEVICES, bus ids do not). */
static int nvml_open(void)
{
    int (*init)(void);
    int (*by_bus)(const char *, nvml_handle *);
    char bus[32];
    void *lib;

    if (nvml.tried)
        return nvml.ok;
    nvml.tried = 1;
    if (cudaDeviceGetPCIBusId(bus, (int)sizeof(bus), 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return 0;
    if (!load_sym(lib, "nvmlInit_v2", &init) || !load_sym(lib, "nvmlDeviceGetHandleByPciBusId_v2", &by_bus) ||
        !load_sym(lib, "nvmlDeviceGetClockInfo", &nvml.get_clock) ||
        !load_sym(lib, "nvmlDeviceGetTemperature", &nvml.get_temp) ||
        !load_sym(lib, "nvmlSystemGetDriverVersion", &nvml.driver_version))
        return 0;
    if (init() != NVML_OK || by_bus(bus, &nvml.dev) != NVML_OK)
        return 0;
    /* The library stays loaded for the life of the process, as NVML expects. */
    nvml.ok = 1;
    return 1;
}

int pg__cuda_sm_clock(unsigned *out_mhz)
{
    *out_mhz = 0;
    if (pg_cuda_probe() != 0)
        return pg_error_set(PG_ESKIP, "%s", pg_error_last());
    if (nvml_open() && nvml.get_clock(nvml.dev, NVML_CLOCK_SM_, out_mhz) != NVML_OK)
        *out_mhz = 0;
    return 0;
}

unsigned pg__cuda_sm_default_clock(void)
{
    int khz = 0;

    if (pg_cuda_probe() != 0)
        return 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return (unsigned)(khz / 1000);
}

/* ---- the fingerprint ----------------------------------------------------- */

static int attr(int *out, cudaDeviceAttr a)
{
    return PG_CUDA_CHECK(cudaDeviceGetAttribute(out, a, 0));
}

int pg__cuda_info(pg_cuda_info *out)
{
    cudaDeviceProp prop;
    size_t free_b = 0;
    unsigned v = 0;
    int err, major = 0, minor = 0, patch = 0;

    memset(out, 0, sizeof(*out));
    out->temperature_c = -1;
    if ((err = pg_cuda_probe()) != 0)
        return err;
    if ((err = PG_CUDA_CHECK(cudaGetDeviceCount(&out->device_count))) != 0 ||
        (err = PG_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0))) != 0 ||
        (err = PG_CUDA_CHECK(cudaDeviceGetPCIBusId(out->pci_bus_id, (int)sizeof(out->pci_bus_id), 0))) != 0 ||
        (err = attr(&out->cc_major, cudaDevAttrComputeCapabilityMajor)) != 0 ||
        (err = attr(&out->cc_minor, cudaDevAttrComputeCapabilityMinor)) != 0 ||
        (err = attr(&out->sm_count, cudaDevAttrMultiProcessorCount)) != 0 ||
        (err = attr(&out->l2_bytes, cudaDevAttrL2CacheSize)) != 0 ||
        (err = attr(&out->ecc, cudaDevAttrEccEnabled)) != 0 ||
        (err = PG_CUDA_CHECK(cudaMemGetInfo(&free_b, &out->total_mem))) != 0 ||
        (err = PG_CUDA_CHECK(cudaDriverGetVersion(&out->driver_version))) != 0 ||
        (err = PG_CUDA_CHECK(cudaRuntimeGetVersion(&out->runtime_version))) != 0 ||
        (err = PG_CUDA_CHECK(cublasGetProperty(MAJOR_VERSION, &major))) != 0 ||
        (err = PG_CUDA_CHECK(cublasGetProperty(MINOR_VERSION, &minor))) != 0 ||
        (err = PG_CUDA_CHECK(cublasGetProperty(PATCH_LEVEL, &patch))) != 0)
        return err;
    snprintf(out->name, sizeof(out->name), "%s", prop.name);
    out->cublas_version = 10000 * major + 100 * minor + patch;
    out->sm_clock_default_mhz = pg__cuda_sm_default_clock();
    if (nvml_open()) {
        if (nvml.get_clock(nvml.dev, NVML_CLOCK_SM_, &v) == NVML_OK)
            out->sm_clock_mhz = v;
        if (nvml.get_clock(nvml.dev, NVML_CLOCK_MEM_, &v) == NVML_OK)
            out->mem_clock_mhz = v;
        if (nvml.get_temp(nvml.dev, NVML_TEMPERATURE_GPU_, &v) == NVML_OK)
            out->temperature_c = (int)v;
        if (nvml.driver_version(out->driver_release, (unsigned)sizeof(out->driver_release)) != NVML_OK)
            out->driver_release[0] = '\0';
    }
    return 0;
}
