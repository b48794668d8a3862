# Building and installing libcontractpin (the C ABI) and the binding packages.
#
#   make                                   build target/lib/release/libcontractpin.{so,a}
#   make install [PREFIX=/usr/local] [DESTDIR=...] [LIB_TYPES="shared static"]
#   make install-strip                     the same, stripped
#   make uninstall [PREFIX=...] [DESTDIR=...]
#   make wheel                             bindings/python/dist/contractpin-*-py3-none-<platform>.whl
#   make sdist                             bindings/python/dist/contractpin-*.tar.gz
#   make test-packages                     scripts/test-packages.sh: install, then use each package from outside
#
# `make install` puts into $(DESTDIR)$(PREFIX):
#   lib/libcontractpin.so.VERSION   the shared library (SONAME libcontractpin.so.0)
#   lib/libcontractpin.so.0         -> libcontractpin.so.VERSION (what programs load)
#   lib/libcontractpin.so           -> libcontractpin.so.0       (what -lcontractpin finds)
#   lib/libcontractpin.a            the static archive
#   include/contractpin.h
#   lib/pkgconfig/contractpin.pc    prefix, version, Libs.private = rustc's native-static-libs
# LIB_TYPES=static installs the archive only (then `pkg-config --static --libs`
# links it); LIB_TYPES=shared the shared library only. LIBDIR, INCLUDEDIR and
# PKGCONFIGDIR override the directories. The library is built by
# scripts/build-lib.sh (the library crate only, features ffi,std; no CLI).

PREFIX ?= /usr/local
DESTDIR ?=
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
LIB_TYPES ?= shared static
STRIP ?= strip
INSTALL ?= install

ROOT := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
LIB_TARGET_DIR ?= $(if $(CARGO_TARGET_DIR),$(abspath $(CARGO_TARGET_DIR)),$(ROOT)/target)/lib
OUT := $(LIB_TARGET_DIR)/release
VERSION := $(shell awk '/^\[/ { p = ($$0 == "[package]") } p && /^version[ \t]*=/ { gsub(/^version[ \t]*=[ \t]*"|".*$$/, ""); print; exit }' $(ROOT)/Cargo.toml)
ABI_VERSION := $(shell sed -n 's/^ABI_VERSION=\([0-9][0-9]*\)$$/\1/p' $(ROOT)/scripts/build-lib.sh)
SONAME := libcontractpin.so.$(ABI_VERSION)
PYTHON ?= $(firstword $(wildcard $(ROOT)/.venv-bindings/bin/python) python3)

ifneq ($(filter-out shared static,$(LIB_TYPES)),)
$(error LIB_TYPES must list shared and/or static, not '$(LIB_TYPES)')
endif
ifeq ($(strip $(LIB_TYPES)),)
$(error LIB_TYPES is empty)
endif

.PHONY: all lib install install-strip uninstall wheel sdist test-packages help

all: lib

lib:
	bash $(ROOT)/scripts/build-lib.sh --release --target-dir $(LIB_TARGET_DIR) > /dev/null

# $(1): strip command for the .so ("" = none); $(2): for the .a.
define install_files
	@set -e; \
	. "$(OUT)/contractpin-build.env"; \
	test "$$VERSION" = "$(VERSION)" && test "$$SONAME" = "$(SONAME)" || { echo "make install: $(OUT) was built from another version; run make" >&2; exit 1; }; \
	lib="$(DESTDIR)$(LIBDIR)"; \
	$(INSTALL) -d "$$lib" "$(DESTDIR)$(INCLUDEDIR)" "$(DESTDIR)$(PKGCONFIGDIR)"; \
	case " $(LIB_TYPES) " in *" shared "*) \
	    $(INSTALL) -m 755 "$(OUT)/libcontractpin.so" "$$lib/libcontractpin.so.$(VERSION)"; \
	    $(if $(1),$(1) "$$lib/libcontractpin.so.$(VERSION)";) \
	    ln -sfn "libcontractpin.so.$(VERSION)" "$$lib/$(SONAME)"; \
	    ln -sfn "$(SONAME)" "$$lib/libcontractpin.so"; \
	    echo "installed $$lib/libcontractpin.so.$(VERSION) (+ $(SONAME), libcontractpin.so)";; \
	esac; \
	case " $(LIB_TYPES) " in *" static "*) \
	    $(INSTALL) -m 644 "$(OUT)/libcontractpin.a" "$$lib/libcontractpin.a"; \
	    $(if $(2),$(2) "$$lib/libcontractpin.a";) \
	    echo "installed $$lib/libcontractpin.a";; \
	esac; \
	$(INSTALL) -m 644 "$(ROOT)/include/contractpin.h" "$(DESTDIR)$(INCLUDEDIR)/contractpin.h"; \
	sh "$(ROOT)/bindings/c/gen-pc.sh" --prefix "$(PREFIX)" \
	    $(if $(filter $(PREFIX)/lib,$(LIBDIR)),,--libdir "$(LIBDIR)") \
	    $(if $(filter $(PREFIX)/include,$(INCLUDEDIR)),,--includedir "$(INCLUDEDIR)") \
	    --native-static-libs "$$NATIVE_STATIC_LIBS" > "$(DESTDIR)$(PKGCONFIGDIR)/contractpin.pc"; \
	chmod 644 "$(DESTDIR)$(PKGCONFIGDIR)/contractpin.pc"; \
	echo "installed $(DESTDIR)$(INCLUDEDIR)/contractpin.h, $(DESTDIR)$(PKGCONFIGDIR)/contractpin.pc"
endef

install: lib
	$(call install_files,,)

# Shared library: symbols and debug information removed (the dynamic symbol
# table stays); archive: debug information only (its symbols are needed to link).
install-strip: lib
	$(call install_files,$(STRIP) --strip-unneeded,$(STRIP) --strip-debug)

uninstall:
	rm -f "$(DESTDIR)$(LIBDIR)/libcontractpin.so" "$(DESTDIR)$(LIBDIR)/$(SONAME)" \
	    "$(DESTDIR)$(LIBDIR)/libcontractpin.so.$(VERSION)" "$(DESTDIR)$(LIBDIR)/libcontractpin.a" \
	    "$(DESTDIR)$(INCLUDEDIR)/contractpin.h" "$(DESTDIR)$(PKGCONFIGDIR)/contractpin.pc"

# The Python packages (pinned build tools: .ci/install-bindings.sh; setuptools
# pinned in bindings/python/pyproject.toml).
wheel:
	$(PYTHON) -m build --wheel $(ROOT)/bindings/python

sdist:
	$(PYTHON) -m build --sdist $(ROOT)/bindings/python

test-packages:
	bash $(ROOT)/scripts/test-packages.sh

help:
	@sed -n '2,/^$$/p' $(lastword $(MAKEFILE_LIST)) | sed 's/^# \{0,1\}//'
