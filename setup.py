"""Builds the Cython kernels (layerzero_viz/_native.pyx); everything else is in pyproject.toml."""
from Cython.Build import cythonize
from setuptools import Extension, setup

setup(
    ext_modules=cythonize(
        [Extension("layerzero_viz._native", ["layerzero_viz/_native.pyx"], language="c++",
                   extra_compile_args=["-O2", "-std=c++17"])],
        compiler_directives={"language_level": 3},
    ),
)
