/* Peer tools measured beside xgpu on the same device. */
#ifndef XGPU_PEERS_H
#define XGPU_PEERS_H

/* Runs `clpeak --global-bandwidth` and returns the best "float*" figure, in
 * GB/s, for the OpenCL device called `device_name`; 0 when clpeak is not
 * installed or does not list the device. */
double peer_clpeak_bandwidth(const char *device_name);

#endif
