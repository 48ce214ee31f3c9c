"""The optional native accelerator (``croupier._accel``, C; see ``croupier.accel``).
Everything else is in pyproject.toml. ``optional=True``: where no C compiler is found
the install goes on without it and Croupier runs its pure-Python path."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "croupier._accel",
            [
                "libs/croupier/_accel.c",
                "libs/croupier/_accel_chain.c",
                "libs/croupier/_accel_baccarat.c",
                "libs/croupier/_accel_shisanshui.c",
                "libs/croupier/_accel_poker.c",
                "libs/croupier/_accel_mahjong.c",
            ],
            depends=["libs/croupier/_accel.h"],
            optional=True,
            extra_compile_args=["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"],
        )
    ]
)
