// Preloaded into the processes of `make asan` (LD_PRELOAD): dlclose does nothing, so that the
// modules a library loads and unloads by itself (OpenMPI's and PMIx's components are unloaded by
// MPI_Finalize) are still mapped when LeakSanitizer reports at exit. Their allocations are then
// named by module, and scripts/lsan.supp can suppress them; after a real unload they show as
// "<unknown module>", which no suppression can match. Built without sanitizers, since it is also
// loaded into programs that have none (mpirun, srun).

extern "C" int dlclose(void* /*handle*/) { return 0; }
