# Sourced by install.sh and install_dvc.sh: venv_install VENV REQUIREMENT...
#
# Installs into VENV with uv (a pip-compatible installer: the same resolution from the same
# indexes, with parallel downloads and unpacking; a fresh project venv from cold caches in
# 28 s instead of pip's 37 s on 2 cores: benchmarks/venv_install.py), falling back to pip
# where uv cannot be had or fails. pip's find-links setting (PIP_FIND_LINKS or `pip config`:
# where wheels on local disk live, such as a CPU build of torch) is passed on to uv, which
# does not read pip's configuration.
# TXN_PIP_NO_COMPILE=1 skips byte-compiling every installed file (Python then compiles what
# is imported, on first use).

venv_install() {
    local venv="$1"
    shift
    local python="$venv/bin/python"
    if "$python" -m pip install --quiet "uv>=0.9,<1" >/dev/null 2>&1; then
        local args=(--quiet --python "$python")
        [ -n "${TXN_PIP_NO_COMPILE:-}" ] || args+=(--compile-bytecode)
        local link
        for link in ${PIP_FIND_LINKS:-} $("$python" -m pip config get global.find-links 2>/dev/null || true); do
            args+=(--find-links "$link")
        done
        if "$venv/bin/uv" pip install "${args[@]}" "$@"; then
            return 0
        fi
        echo "venv_install: uv failed; installing with pip instead" >&2
    fi
    "$python" -m pip install --quiet --upgrade pip
    "$python" -m pip install --quiet ${TXN_PIP_NO_COMPILE:+--no-compile} "$@"
}
