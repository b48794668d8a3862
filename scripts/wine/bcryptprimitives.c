/*
 * A stand-in for Windows' bcryptprimitives.dll, for running the Windows
 * build's tests under Wine 8 (Debian bookworm), which does not have that
 * DLL. Rust's standard library (1.78 and later) and Go's runtime import
 * ProcessPrng from it for random seeds; without it neither starts under
 * that Wine. This one fills the buffer from RtlGenRandom (advapi32's
 * SystemFunction036), which Wine does have. Test use only: it is built by
 * scripts/test-cross.sh into its Wine prefix's system directory and
 * shipped nowhere.
 */
#include <windows.h>

typedef BOOLEAN(WINAPI *gen_random)(PVOID, ULONG);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    static gen_random gen;
    if (!gen) {
        HMODULE advapi = LoadLibraryA("advapi32.dll");
        if (!advapi)
            return FALSE;
        gen = (gen_random)(void *)GetProcAddress(advapi, "SystemFunction036");
        if (!gen)
            return FALSE;
    }
    while (len) {
        ULONG n = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (!gen(data, n))
            return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
