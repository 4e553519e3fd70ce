/* main.c - perfgate-meter, the measuring child of the counting instruments (meter.h). */
#include "meter/meter.h"

#include "kernels/kernels.h"

/* The counting instruments refuse GPU cases: this program carries no CUDA kernels. */
const pg_kernel *const pg__cuda_kernels[] = {NULL};

int main(int argc, char **argv)
{
    return pg_meter_child_main(argc, argv);
}
