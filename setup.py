"""Build the compiled modules (fastmach/core/_*.pyx, fastmach/strategies/_*.pyx, the engine).

Compiler directives are set once here for every module. Set FASTMACH_DEBUG=1 to turn
bounds/wraparound checks back on and write Cython's HTML annotation next to each module,
FASTMACH_SYMBOLS=1 to keep the C compiler's debug information (for profiling).
Cython and the C compiler run one job per processor (both parallel without -j).
"""
import glob
import os

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext as _build_ext

DEBUG = os.environ.get("FASTMACH_DEBUG", "") not in ("", "0")
# the core, the batch solver, the deal's seeding, every compiled strategy module
# (fastmach/strategies/_*.pyx: a new strategy family is picked up by its file alone), then
# the engine
MODULES = (
    ["core/_cardset", "core/_split_reject", "core/_solver", "core/_batch", "core/_meldcheck",
     "core/_ids",
     "game/_seeding", "game/_playcheck", "game/_rows", "game/_ability"]
    + sorted(f"strategies/{os.path.basename(p)[:-4]}"
             for p in glob.glob("fastmach/strategies/_*.pyx"))
    + ["engine/_engine", "env/_encode", "env/_probe", "env/_turns",
       "env/_vector_step"]
)

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "cdivision": True,
    "initializedcheck": DEBUG,
}
# no debug information by default: gcc's CPU time for the 31 modules falls from 119 s to
# 91 s (the code is the same); FASTMACH_SYMBOLS=1 keeps it (perf's call graphs by dwarf)
SYMBOLS = os.environ.get("FASTMACH_SYMBOLS", "") not in ("", "0")
extra = ["-O3", "-g" if SYMBOLS else "-g0"] if not DEBUG else ["-O0", "-g"]
# popcount as one instruction where the compiler targets x86-64 (measured in fastmach bench)
if os.uname().machine in ("x86_64", "AMD64"):
    extra.append("-mpopcnt")

extensions = [
    Extension(
        f"fastmach.{name}".replace("/", "."),
        [f"fastmach/{name}.pyx"],
        include_dirs=[np.get_include()],
        extra_compile_args=extra,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in MODULES
    if os.path.exists(f"fastmach/{name}.pyx")
]

# one job per processor, the largest modules first (the last to finish sets the time)
JOBS = os.cpu_count() or 1
extensions.sort(key=lambda e: -os.path.getsize(e.sources[0]))


class build_ext(_build_ext):
    """build_ext compiling the modules in parallel by default (JOBS at a time), as
    `build_ext -j JOBS` does: `pip install` passes no -j."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = JOBS


setup(
    cmdclass={"build_ext": build_ext},
    ext_modules=cythonize(
        extensions, compiler_directives=directives, annotate=DEBUG,
        nthreads=JOBS if JOBS > 1 else 0,
    ),
)
