# Test registration: C unit tests, busted specs (Lua 5.4 and LuaJIT),
# end-to-end CLI tests and the protocol conformance suite.
add_executable(test_core core/tests/test_core.c)
target_include_directories(test_core PRIVATE core/include core/src)
target_compile_options(test_core PRIVATE ${KIP_WARNINGS})
target_link_libraries(test_core PRIVATE kipcore)
add_test(NAME unit_core COMMAND test_core)
# every FIND plan the tests use again is compared with a fresh compile (exec_plans.c)
set_tests_properties(unit_core PROPERTIES ENVIRONMENT "KIP_PLAN_VERIFY=1")
# a statement kind added from outside the tree: the core built again with
# docs/examples/statement (PING), driven through the public API
add_library(kipcore_stmt_ext_obj OBJECT ${KIP_CORE_SOURCES} ${CMAKE_BINARY_DIR}/capsules_embedded.c)
target_include_directories(kipcore_stmt_ext_obj PUBLIC core/include PRIVATE core/src)
target_link_libraries(kipcore_stmt_ext_obj PUBLIC PkgConfig::SQLITE PkgConfig::JANSSON PkgConfig::PCRE2 PkgConfig::CURL PkgConfig::LIBPQ Threads::Threads)
kip_statement_extension(kipcore_stmt_ext_obj ${CMAKE_SOURCE_DIR}/docs/examples/statement)
add_executable(test_statement_ext core/tests/test_statement_ext.c $<TARGET_OBJECTS:kipcore_stmt_ext_obj>)
target_include_directories(test_statement_ext PRIVATE core/include)
target_compile_options(test_statement_ext PRIVATE ${KIP_WARNINGS})
target_link_libraries(test_statement_ext PRIVATE PkgConfig::SQLITE PkgConfig::JANSSON PkgConfig::PCRE2 PkgConfig::CURL PkgConfig::LIBPQ Threads::Threads m)
add_test(NAME statement_extension COMMAND test_statement_ext)

find_program(BUSTED busted)
if(KIP_SANITIZE)
  set(BUSTED "") # an ASan-instrumented kip/core.so cannot load into a plain interpreter
endif()
set(KIP_LUA_PATH "${CMAKE_SOURCE_DIR}/lua/?.lua\;${CMAKE_SOURCE_DIR}/lua/?/init.lua\;\;")
if(BUSTED)
  add_test(NAME spec_lua54 COMMAND ${BUSTED} --lua=lua5.4 -o utfTerminal ${CMAKE_SOURCE_DIR}/spec)
  set_tests_properties(spec_lua54 PROPERTIES ENVIRONMENT
    "LUA_PATH_5_4=${KIP_LUA_PATH};LUA_CPATH_5_4=${CMAKE_BINARY_DIR}/lua54/?.so\;\;;KIP_PLAN_VERIFY=1")
  if(LUAJIT_FOUND)
    add_test(NAME spec_luajit COMMAND ${BUSTED} --lua=luajit -o utfTerminal ${CMAKE_SOURCE_DIR}/spec)
    set_tests_properties(spec_luajit PROPERTIES ENVIRONMENT
      "LUA_PATH=${KIP_LUA_PATH};LUA_CPATH=${CMAKE_BINARY_DIR}/luajit/?.so\;\;;KIP_PLAN_VERIFY=1")
  endif()
  # the ARG, sleep, mind, exactness and security specs on the PostgreSQL backend
  # (a throwaway cluster; docs/postgresql.md)
  find_program(PYTHON3_FOR_SPECS python3)
  add_test(NAME spec_pg COMMAND ${PYTHON3_FOR_SPECS} ${CMAKE_SOURCE_DIR}/tests/pg_specs.py ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR})
endif()

add_test(NAME e2e_cli COMMAND ${CMAKE_SOURCE_DIR}/tests/e2e_cli.sh ${CMAKE_BINARY_DIR})

# MCP server driven by a scripted client
# Randomized trials (kills at random moments, random writes before a cycle):
# the plain tree runs the full counts; the sanitizer tree, whose every
# process is 3-5x slower, looks for memory errors on the same paths with a
# third of them (CI's time budget; README "Tests, sanitizers, fuzzing")
if(KIP_SANITIZE)
  set(KIP_TRIALS_CRASH 6)
  set(KIP_TRIALS_SLEEP_CRASH 20)
  set(KIP_TRIALS_SLEEP_INCREMENTAL 12)
  set(KIP_TRIALS_ARG_OFFLINE 4)
else()
  set(KIP_TRIALS_CRASH 12)
  set(KIP_TRIALS_SLEEP_CRASH 60)
  set(KIP_TRIALS_SLEEP_INCREMENTAL 40)
  set(KIP_TRIALS_ARG_OFFLINE 12)
endif()
find_program(PYTHON3_FOR_E2E python3)
if(PYTHON3_FOR_E2E)
  add_test(NAME e2e_mcp COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_mcp.py ${CMAKE_BINARY_DIR}/kip)
  # the REPL on a pseudo-terminal (readline, completion, history)
  add_test(NAME e2e_repl COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_repl.py ${CMAKE_BINARY_DIR}/kip)
  # the adversarial scope-probe matrix over CLI, MCP and (outside a sanitizer
  # tree) HTTP through nginx, hostile policies under nginx, read-only files
  if(KIP_SANITIZE)
    add_test(NAME e2e_security COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_security.py ${CMAKE_BINARY_DIR} --no-http)
  else()
    add_test(NAME e2e_security COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_security.py ${CMAKE_BINARY_DIR})
  endif()
  # kip mcp driven by the official MCP SDK client (npm, installed by scripts/setup-deps BUILD_DIR)
  find_program(NODE_FOR_E2E node)
  if(NODE_FOR_E2E)
    add_test(NAME e2e_mcp_sdk COMMAND ${NODE_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_mcp_sdk.mjs ${CMAKE_BINARY_DIR})
    set_tests_properties(e2e_mcp_sdk PROPERTIES SKIP_RETURN_CODE 77)
    # the web inspector (kip ui) in Debian's headless chromium, driven by
    # playwright-core (npm); the 1 000-node drawing time is held to 1 s outside
    # the sanitizer tree
    if(KIP_SANITIZE)
      add_test(NAME e2e_ui COMMAND ${NODE_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_ui.mjs ${CMAKE_BINARY_DIR} --no-timing)
    else()
      add_test(NAME e2e_ui COMMAND ${NODE_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_ui.mjs ${CMAKE_BINARY_DIR})
    endif()
  endif()
  # the remote embedder against a stub /v1/embeddings server on 127.0.0.1
  add_test(NAME e2e_embedder COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_embedder.py ${CMAKE_BINARY_DIR})
  # the ARG route hook as a chat-completions client, against a stub server on 127.0.0.1
  add_test(NAME e2e_arg_route_llm COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_arg_route_llm.py ${CMAKE_BINARY_DIR})
  # the ARG guard hook (a model adding refusals the rules have no words for), against a stub server
  add_test(NAME e2e_arg_guard_llm COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_arg_guard_llm.py ${CMAKE_BINARY_DIR})
  # SIGKILL a random writer again and again: indexes and vectors stay consistent
  add_test(NAME e2e_crash COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_crash.py ${CMAKE_BINARY_DIR} ${KIP_TRIALS_CRASH})
  # the core's layering (docs/architecture.md): no upward include and, read
  # from the built objects with nm, no upward call and no call cycle between
  # families; its header list is true
  add_test(NAME layers COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/scripts/check-layers
           ${CMAKE_BINARY_DIR}/CMakeFiles/kipcore_obj.dir/core/src)
  # no require cycle among the Lua host's modules (a facade is required, never requires back)
  add_test(NAME lua_requires COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/check_lua_requires.py ${CMAKE_SOURCE_DIR}/lua)
  # no shadowed local, unused variable or value never set in the shipped Lua (luacheck)
  add_test(NAME lua_lint COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/lua_lint.py ${CMAKE_SOURCE_DIR})
  # an operator's extension folder (docs/extending.md): a command, an MCP tool, an ARG
  # step, a sleep phase and a policy added without editing kipnexus; sandboxed, hot-reloaded
  add_test(NAME e2e_extending COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_extending.py ${CMAKE_BINARY_DIR})
  # the mind model through the CLI and MCP
  add_test(NAME e2e_mind COMMAND ${CMAKE_SOURCE_DIR}/tests/e2e_mind.sh ${CMAKE_BINARY_DIR})
  # Tests of the shared fixtures (../shared beside the checkout, or $KIP_SHARED):
  # registered whether or not the fixtures are there; a missing fixture makes
  # them exit 77, which ctest reports as skipped (and scripts/test counts) —
  # never a pass.
  # the sleep cycle on ../shared/sleep (scored by its check.py) and killed at random moments
  add_test(NAME e2e_sleep COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_sleep.py ${CMAKE_BINARY_DIR} fixture)
  # ... on a nexus that also holds an ARG ontology and mind data (what they own is left alone)
  add_test(NAME e2e_sleep_neighbours COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_sleep.py ${CMAKE_BINARY_DIR} neighbours)
  add_test(NAME e2e_sleep_crash COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_sleep.py ${CMAKE_BINARY_DIR} crash ${KIP_TRIALS_SLEEP_CRASH})
  # ... incremental cycles after random agent writes leave what a full cycle leaves
  add_test(NAME e2e_sleep_incremental COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_sleep.py ${CMAKE_BINARY_DIR} incremental ${KIP_TRIALS_SLEEP_INCREMENTAL})
  # the throwaway PostgreSQL 15 clusters the server backend's tests will run on (docs/postgresql.md)
  add_test(NAME e2e_pg_cluster COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/pg_cluster.py selftest)
  # 8 client processes x 40 s of EXPECT VERSION increments on the PostgreSQL backend, then
  # clients killed and the server crashed mid-writes: no lost update, no half-applied command
  # a streaming standby answers read-only calls and refuses writes
  add_test(NAME e2e_pg_standby COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_pg_standby.py ${CMAKE_BINARY_DIR})
  # kip migrate SQLite -> PostgreSQL -> SQLite, verified, ids aside
  add_test(NAME e2e_pg_migrate COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_pg_migrate.py ${CMAKE_BINARY_DIR})
  add_test(NAME e2e_pg_concurrency COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_pg_concurrency.py ${CMAKE_BINARY_DIR} 8 40)
  # the ARG online loop on ../shared/arg: eval scored by its check.py, replay, JSON Schemas, MCP
  add_test(NAME e2e_arg COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_arg.py ${CMAKE_BINARY_DIR})
  # the offline loop: learn from feedback, publish, roll back, pinning under concurrent publishes, kill -9
  add_test(NAME e2e_arg_offline COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_arg_offline.py ${CMAKE_BINARY_DIR} ${KIP_TRIALS_ARG_OFFLINE})
  # the adversarial suite over the CLI, MCP (the official SDK client) and HTTP (nginx), on two ontologies
  if(KIP_SANITIZE) # an ASan-instrumented kip/core.so cannot load into nginx: the plain tree runs the HTTP leg
    add_test(NAME e2e_arg_adversarial COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_arg_adversarial.py ${CMAKE_BINARY_DIR} --no-http)
  else()
    add_test(NAME e2e_arg_adversarial COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/e2e_arg_adversarial.py ${CMAKE_BINARY_DIR})
  endif()
  # the ARG learning-curve experiment runs end to end (its figures are docs/arg.md's, not checked here)
  add_test(NAME bench_arg_learning_smoke COMMAND ${CMAKE_SOURCE_DIR}/scripts/bench/arg_learning/run ${CMAKE_BINARY_DIR}/kip)
  set_tests_properties(bench_arg_learning_smoke PROPERTIES SKIP_RETURN_CODE 77 PASS_REGULAR_EXPRESSION "99\\+R .*primary-label 0\\.[0-9]")
  # no ontology's product, role, audience or tenant name in lua/ or policies/
  add_test(NAME arg_no_fixture_literals COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/arg/no_fixture_literals.py ${CMAKE_SOURCE_DIR})
  # docs are tests: every runnable example of README.md and docs/*.md, as written
  add_test(NAME docs_examples COMMAND ${PYTHON3_FOR_E2E} ${CMAKE_SOURCE_DIR}/tests/docs_examples.py ${CMAKE_BINARY_DIR})
  set_tests_properties(e2e_sleep e2e_sleep_neighbours e2e_sleep_crash e2e_sleep_incremental e2e_pg_cluster e2e_arg e2e_arg_offline e2e_arg_adversarial arg_no_fixture_literals
                       docs_examples PROPERTIES SKIP_RETURN_CODE 77)
  # ... and that they cannot pass vacuously (nor the conformance runner's wrapper)
  add_test(NAME no_vacuous_pass COMMAND ${CMAKE_SOURCE_DIR}/tests/no_vacuous_pass.sh ${CMAKE_BINARY_DIR})
  # import of a generated 100k-element capsule, export, backup
  add_test(NAME e2e_import COMMAND ${CMAKE_SOURCE_DIR}/tests/e2e_import.sh ${CMAKE_BINARY_DIR})
endif()

# the benchmark the performance figures come from (scripts/bench/kql,
# docs/performance.md) on a tiny graph at two sizes: it must load, measure and
# print every table, the sizes alternated last (timings are not checked)
add_test(NAME bench_kql_smoke COMMAND bench_kql --concepts 2000 --links 10000 --scale 2 --runs 3 --singles 40
         --dir ${CMAKE_BINARY_DIR})
set_tests_properties(bench_kql_smoke PROPERTIES PASS_REGULAR_EXPRESSION "single writes, the sizes alternated"
                     FAIL_REGULAR_EXPRESSION "SQL error|KIP error|raw insert:|raw link:|merge_index:|open:")

# nginx/OpenResty endpoints (LuaJIT kip.core; not in a sanitizer tree, whose
# instrumented module cannot load into a plain nginx)
if(LUAJIT_FOUND AND NOT KIP_SANITIZE)
  add_test(NAME e2e_nginx COMMAND ${CMAKE_SOURCE_DIR}/tests/e2e_nginx.sh ${CMAKE_BINARY_DIR})
  set_tests_properties(e2e_nginx PROPERTIES SKIP_RETURN_CODE 77)
endif()

# valgrind leak check of every kip process the CLI tests start
find_program(VALGRIND valgrind)
if(VALGRIND AND NOT KIP_SANITIZE)
  add_test(NAME valgrind_cli COMMAND ${CMAKE_SOURCE_DIR}/tests/e2e_cli.sh ${CMAKE_BINARY_DIR})
  set_tests_properties(valgrind_cli PROPERTIES ENVIRONMENT "KIP_VALGRIND=1")
endif()

# bounded fuzzing (sanitizer tree built with -DKIP_FUZZ=ON)
set(KIP_FUZZ_SECONDS 30 CACHE STRING "Seconds each fuzz target runs under ctest")
if(KIP_FUZZ)
  foreach(t fuzz_parser fuzz_exec fuzz_json)
    add_test(NAME ${t} COMMAND ${CMAKE_SOURCE_DIR}/tests/fuzz.sh $<TARGET_FILE:${t}> ${KIP_FUZZ_SECONDS})
  endforeach()
endif()

# the whole suite of an ASan/UBSan tree (scripts/test builds it beside this one)
set(KIP_SANITIZER_BUILD "" CACHE PATH "Build tree configured with -DKIP_SANITIZE=ON, run as one test")
if(KIP_SANITIZER_BUILD)
  add_test(NAME sanitizers COMMAND ${CMAKE_SOURCE_DIR}/tests/sanitizers.sh ${CMAKE_CTEST_COMMAND} ${KIP_SANITIZER_BUILD})
endif()

# conformance: one test per case file (../shared beside the checkout, or $KIP_SHARED)
if(DEFINED ENV{KIP_SHARED})
  set(KIP_SHARED_DEFAULT "$ENV{KIP_SHARED}")
else()
  set(KIP_SHARED_DEFAULT "${CMAKE_SOURCE_DIR}/../shared")
endif()
set(KIP_CONFORMANCE_DIR "${KIP_SHARED_DEFAULT}/conformance" CACHE PATH "KIP conformance suite")
find_program(PYTHON3 python3)
if(EXISTS "${KIP_CONFORMANCE_DIR}/run_conformance.py")
  file(GLOB KIP_CASE_FILES "${KIP_CONFORMANCE_DIR}/cases/*.json")
  # A case that must fail for a known reason is listed as
  #   set(KIP_PENDING_<file> <case>...)   or   list(APPEND KIP_PENDING_FILES <file>)
  # so the gap stays visible in the test output. Currently none.
  # (tests/conformance.sh fails when the runner or a case file is gone, or
  # the runner ran no case: a build tree configured with the suite present
  # and run without it fails rather than passes)
  foreach(f IN LISTS KIP_CASE_FILES)
    get_filename_component(n ${f} NAME_WE)
    add_test(NAME conformance_${n} COMMAND ${CMAKE_SOURCE_DIR}/tests/conformance.sh
             ${KIP_CONFORMANCE_DIR}/run_conformance.py ${CMAKE_BINARY_DIR}/kip ${f} ${KIP_PENDING_${n}})
    if(n IN_LIST KIP_PENDING_FILES)
      set_tests_properties(conformance_${n} PROPERTIES DISABLED TRUE)
    endif()
  endforeach()
  # ... and on the PostgreSQL backend (tests/pg_conformance.py; docs/postgresql.md):
  # every file on one throwaway cluster, two runners side by side, as one test
  # (a cluster per file cost a server start each; ctest's fixtures to share
  # one put its tests ahead of the long runners below); pending cases of the
  # PostgreSQL backend as set(KIP_PENDING_PG_<file> <case>...) — currently none
  set(KIP_PENDING_PG)
  foreach(f IN LISTS KIP_CASE_FILES)
    get_filename_component(n ${f} NAME_WE)
    list(APPEND KIP_PENDING_PG ${KIP_PENDING_PG_${n}})
  endforeach()
  add_test(NAME conformance_pg COMMAND ${CMAKE_SOURCE_DIR}/tests/conformance.sh
           ${CMAKE_SOURCE_DIR}/tests/pg_conformance.py ${CMAKE_BINARY_DIR}/kip ${KIP_CASE_FILES} ${KIP_PENDING_PG})
  set_tests_properties(conformance_pg PROPERTIES COST 100)
else()
  # the suite is not there: one test that says so, reported as skipped
  add_test(NAME conformance COMMAND sh -c "echo 'SKIPPED: the conformance suite ${KIP_CONFORMANCE_DIR} is missing (set KIP_SHARED, or put ../shared beside the checkout)'; exit 77")
  set_tests_properties(conformance PROPERTIES SKIP_RETURN_CODE 77)
endif()

# start the long runners first
foreach(t valgrind_cli sanitizers fuzz_parser fuzz_exec fuzz_json)
  if(TEST ${t})
    set_tests_properties(${t} PROPERTIES COST 1000)
  endif()
endforeach()
