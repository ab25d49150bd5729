# emcp.cmake — libemcp_ffi.a built by cargo for the target of the CMake toolchain, as the
# imported target `emcp::emcp` (Corrosion's idea, for one crate and in a page).
#
# The Rust target: EMCP_RUST_TARGET when set; the host's when not cross-compiling; else
# derived from CMAKE_SYSTEM_PROCESSOR and CMAKE_C_FLAGS (-mcpu, -mfloat-abi, -march,
# -mabi). What rustc says of it (`--print cfg`) decides the rest: a bare-metal target
# (target_os "none") builds as examples/firmware/Makefile does (the firmware's features,
# opt-level "z"); one without 32-bit atomic read-modify-write (Cortex-M0/M0+, RV32 without
# A) gets the feature critical-section-single-core unless EMCP_CRITICAL_SECTION_SINGLE_CORE
# is OFF; a host target links the system libraries Rust's std needs.
#
# Cargo runs when a file under core/ or ffi/, a manifest, Cargo.lock or the cargo command
# line changed (the DEPENDS below), and then decides itself what to recompile; a build
# with nothing changed does not start it. Its target dir is inside the CMake build dir.
#
# Sets EMCP_LIBRARY, EMCP_RUST_TARGET_RESOLVED, EMCP_BUILD (target and features, in words),
# EMCP_NATIVE_LIBS and EMCP_DEFINES for the install rules (../CMakeLists.txt).

set(_emcp_root "${CMAKE_CURRENT_LIST_DIR}/..")
get_filename_component(_emcp_root "${_emcp_root}" ABSOLUTE)

set(EMCP_RUST_TARGET "" CACHE STRING "Rust target of libemcp_ffi.a (empty: derived from the CMake toolchain)")
set(EMCP_CARGO_FLAGS "" CACHE STRING "More cargo arguments, a CMake list (e.g. --locked;--offline)")
find_program(EMCP_CARGO cargo HINTS "$ENV{CARGO_HOME}/bin" "$ENV{HOME}/.cargo/bin")
find_program(EMCP_RUSTC rustc HINTS "$ENV{CARGO_HOME}/bin" "$ENV{HOME}/.cargo/bin")
if(NOT EMCP_CARGO OR NOT EMCP_RUSTC)
    message(FATAL_ERROR "emcp: cargo and rustc are needed (https://rustup.rs), or set EMCP_CARGO and EMCP_RUSTC")
endif()

# The Rust target of a cross toolchain: Cortex-M by CPU and float ABI, RV32 by -march.
function(_emcp_derive_target out)
    string(TOLOWER "${CMAKE_SYSTEM_PROCESSOR} ${CMAKE_C_FLAGS}" f)
    set(hf "")
    if(f MATCHES "-mfloat-abi=hard")
        set(hf hf)
    endif()
    if(f MATCHES "-march=rv32([a-z]*)")
        set(ext "${CMAKE_MATCH_1}")
        if(ext MATCHES "[fg]" AND f MATCHES "-mabi=ilp32f")
            set(t riscv32imafc-unknown-none-elf)
        elseif(ext MATCHES "[ag]")
            set(t riscv32imac-unknown-none-elf)
        elseif(ext MATCHES "c")
            set(t riscv32imc-unknown-none-elf)
        elseif(ext MATCHES "m")
            set(t riscv32im-unknown-none-elf)
        else()
            set(t riscv32i-unknown-none-elf)
        endif()
    elseif(f MATCHES "cortex-m(33|35p|55|85)|armv8\\.?1?-m\\.main")
        set(t thumbv8m.main-none-eabi${hf})
    elseif(f MATCHES "cortex-m23|armv8-m\\.base")
        set(t thumbv8m.base-none-eabi)
    elseif(f MATCHES "cortex-m(0|0plus|1)([^0-9]|$)|armv6s?-m")
        set(t thumbv6m-none-eabi)
    elseif(f MATCHES "cortex-m3([^0-9]|$)|armv7-m")
        set(t thumbv7m-none-eabi)
    elseif(f MATCHES "cortex-m[47]([^0-9]|$)|armv7e-m")
        set(t thumbv7em-none-eabi${hf})
    else()
        message(FATAL_ERROR "emcp: no Rust target known for processor '${CMAKE_SYSTEM_PROCESSOR}' "
            "and flags '${CMAKE_C_FLAGS}': set EMCP_RUST_TARGET (e.g. -DEMCP_RUST_TARGET=thumbv7m-none-eabi)")
    endif()
    set(${out} ${t} PARENT_SCOPE)
endfunction()

set(_emcp_target "${EMCP_RUST_TARGET}")
if(_emcp_target STREQUAL "" AND CMAKE_CROSSCOMPILING)
    _emcp_derive_target(_emcp_target)
endif()
set(_emcp_target_arg "")
if(_emcp_target)
    set(_emcp_target_arg --target ${_emcp_target})
endif()
execute_process(COMMAND "${EMCP_RUSTC}" --print cfg ${_emcp_target_arg}
    OUTPUT_VARIABLE _emcp_cfg ERROR_VARIABLE _emcp_err RESULT_VARIABLE _emcp_rc)
if(_emcp_rc)
    message(FATAL_ERROR "emcp: rustc does not know the target '${_emcp_target}' "
        "(rustup target add ${_emcp_target}): ${_emcp_err}")
endif()
string(FIND "${_emcp_cfg}" "target_os=\"none\"" _emcp_bare)
string(FIND "${_emcp_cfg}" "target_has_atomic=\"32\"" _emcp_atomics)
set(EMCP_RUST_TARGET_RESOLVED "${_emcp_target}")
if(NOT _emcp_target)
    execute_process(COMMAND "${EMCP_RUSTC}" -vV OUTPUT_VARIABLE _emcp_vv)
    string(REGEX MATCH "host: [^\n]*" EMCP_RUST_TARGET_RESOLVED "${_emcp_vv}")
    string(REPLACE "host: " "" EMCP_RUST_TARGET_RESOLVED "${EMCP_RUST_TARGET_RESOLVED}")
endif()

# Features: the firmware's on bare metal (no `std`, no `plans`), emcp-ffi's defaults else.
if(_emcp_bare GREATER -1)
    set(EMCP_FEATURES "legacy,stateless,resources,prompts,completions,logging,pagination,schema-walk"
        CACHE STRING "emcp-ffi cargo features, comma-separated")
    option(EMCP_NO_DEFAULT_FEATURES "cargo --no-default-features" ON)
else()
    set(EMCP_FEATURES "" CACHE STRING "emcp-ffi cargo features, comma-separated")
    option(EMCP_NO_DEFAULT_FEATURES "cargo --no-default-features" OFF)
endif()
option(EMCP_CRITICAL_SECTION_SINGLE_CORE
    "Without atomic RMW: emcp masks interrupts itself (OFF: define emcp_critical_section_acquire/_release)" ON)
option(EMCP_BUILD_STD
    "Bare metal: core built with the library (rust-src, RUSTC_BOOTSTRAP=1), no forced frame pointers" OFF)

set(_emcp_features "${EMCP_FEATURES}")
if(_emcp_atomics EQUAL -1 AND EMCP_CRITICAL_SECTION_SINGLE_CORE)
    string(APPEND _emcp_features ",critical-section-single-core")
endif()
string(REGEX REPLACE "^,+" "" _emcp_features "${_emcp_features}")
set(EMCP_DEFINES "")
if(_emcp_features MATCHES "(^|,)tasks(,|$)")
    set(EMCP_DEFINES EMCP_TASKS) # the header's storage sizes with the task slots
endif()

set(_emcp_dir "${CMAKE_CURRENT_BINARY_DIR}/cargo")
set(_emcp_args rustc --release --manifest-path "${_emcp_root}/ffi/Cargo.toml" --crate-type staticlib
    --target-dir "${_emcp_dir}")
if(EMCP_NO_DEFAULT_FEATURES)
    list(APPEND _emcp_args --no-default-features)
endif()
if(_emcp_features)
    list(APPEND _emcp_args --features "${_emcp_features}")
endif()
set(_emcp_env "")
set(_emcp_out "${_emcp_target}")
if(_emcp_bare GREATER -1 AND EMCP_BUILD_STD)
    # As the firmware Makefile: rustc's own target spec, but frame pointers may be omitted
    # (the thumb targets force them, a frame set-up in every function); core built with it.
    set(_emcp_out "${_emcp_target}-nofp")
    execute_process(COMMAND "${CMAKE_COMMAND}" -E env RUSTC_BOOTSTRAP=1
        "${EMCP_RUSTC}" -Z unstable-options --print target-spec-json --target ${_emcp_target}
        OUTPUT_VARIABLE _emcp_spec RESULT_VARIABLE _emcp_rc)
    if(_emcp_rc)
        message(FATAL_ERROR "emcp: EMCP_BUILD_STD: rustc could not print the spec of ${_emcp_target}")
    endif()
    string(REGEX REPLACE "\"frame-pointer\": *\"always\"" "\"frame-pointer\": \"may-omit\"" _emcp_spec "${_emcp_spec}")
    file(WRITE "${_emcp_dir}/${_emcp_out}.json.new" "${_emcp_spec}")
    configure_file("${_emcp_dir}/${_emcp_out}.json.new" "${_emcp_dir}/${_emcp_out}.json" COPYONLY)
    set(_emcp_target_arg --target "${_emcp_dir}/${_emcp_out}.json" -Zjson-target-spec -Zbuild-std=core)
    set(_emcp_env RUSTC_BOOTSTRAP=1)
endif()
list(APPEND _emcp_args ${_emcp_target_arg})
if(_emcp_bare GREATER -1)
    list(APPEND _emcp_args --config "profile.release.opt-level=\"z\"")
    string(TOLOWER "${CMAKE_C_FLAGS}" _emcp_flags)
    if(_emcp_target MATCHES "^thumb" AND _emcp_flags MATCHES "-mcpu=(cortex-m[0-9a-z]+)")
        list(APPEND _emcp_args --config "target.${_emcp_out}.rustflags=[\"-C\", \"target-cpu=${CMAKE_MATCH_1}\"]")
    endif()
endif()
list(APPEND _emcp_args ${EMCP_CARGO_FLAGS})

set(EMCP_LIBRARY "${_emcp_dir}/${_emcp_out}/release/${CMAKE_STATIC_LIBRARY_PREFIX}emcp_ffi${CMAKE_STATIC_LIBRARY_SUFFIX}")
string(REPLACE "//" "/" EMCP_LIBRARY "${EMCP_LIBRARY}")

# The system libraries a Rust staticlib with std needs on this host: rustc's own answer
# for an empty crate (emcp-ffi links nothing else).
set(EMCP_NATIVE_LIBS "")
if(_emcp_bare EQUAL -1)
    file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/native-libs/empty.rs" "")
    execute_process(COMMAND "${EMCP_RUSTC}" --crate-type staticlib --crate-name emcp_native_libs
        --print native-static-libs ${_emcp_target_arg} empty.rs
        WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/native-libs" ERROR_VARIABLE _emcp_err OUTPUT_QUIET)
    if(_emcp_err MATCHES "native-static-libs: ([^\n]*)")
        separate_arguments(EMCP_NATIVE_LIBS UNIX_COMMAND "${CMAKE_MATCH_1}")
    endif()
endif()

if(EMCP_NO_DEFAULT_FEATURES)
    set(EMCP_BUILD "${EMCP_RUST_TARGET_RESOLVED}, no default features + '${_emcp_features}'")
else()
    set(EMCP_BUILD "${EMCP_RUST_TARGET_RESOLVED}, default features + '${_emcp_features}'")
endif()
message(STATUS "emcp: libemcp_ffi for ${EMCP_BUILD}")

# The cargo command line as a file that changes only when it does, so that a changed
# cache variable runs cargo again whatever the generator.
string(REPLACE ";" " " _emcp_cmdline "${_emcp_env} ${EMCP_CARGO} ${_emcp_args}")
file(WRITE "${_emcp_dir}/command.new" "${_emcp_cmdline}\n")
configure_file("${_emcp_dir}/command.new" "${_emcp_dir}/command" COPYONLY)
file(GLOB_RECURSE _emcp_sources CONFIGURE_DEPENDS "${_emcp_root}/core/*.rs" "${_emcp_root}/ffi/*.rs")
add_custom_command(OUTPUT "${EMCP_LIBRARY}"
    COMMAND "${CMAKE_COMMAND}" -E env ${_emcp_env} "${EMCP_CARGO}" ${_emcp_args}
    COMMAND "${CMAKE_COMMAND}" -E touch "${EMCP_LIBRARY}" # newer than its inputs, even when cargo had nothing to do
    DEPENDS ${_emcp_sources} "${_emcp_dir}/command" "${_emcp_root}/Cargo.toml" "${_emcp_root}/Cargo.lock"
        "${_emcp_root}/core/Cargo.toml" "${_emcp_root}/ffi/Cargo.toml"
    WORKING_DIRECTORY "${_emcp_root}"
    COMMENT "cargo: libemcp_ffi for ${EMCP_BUILD}"
    USES_TERMINAL VERBATIM)
add_custom_target(emcp_cargo ALL DEPENDS "${EMCP_LIBRARY}")

add_library(emcp::emcp STATIC IMPORTED GLOBAL)
set_target_properties(emcp::emcp PROPERTIES
    IMPORTED_LOCATION "${EMCP_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${_emcp_root}/include"
    INTERFACE_COMPILE_DEFINITIONS "${EMCP_DEFINES}"
    INTERFACE_LINK_LIBRARIES "${EMCP_NATIVE_LIBS}")
add_dependencies(emcp::emcp emcp_cargo)
