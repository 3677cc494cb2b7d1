/*
** kip_binding.h — what the files of the Lua binding share: the nexus
** userdata (kip_core.c) and the method tables the other files add to it.
*/
#ifndef KIP_BINDING_H
#define KIP_BINDING_H
#include "kip.h"
#include "kip_compat.h"

#define NEXUS_MT "kip.Nexus"

typedef struct lnexus {
  kip_nexus *nx;
  lua_State *L; /* the thread of the method running now: Lua callbacks run on it */
} lnexus;

/* the open nexus at stack index i (raises for a closed one); records L */
lnexus *kip_check_nexus(lua_State *L, int i);

/* a Lua progress(done, total) callback for the core's long operations */
typedef struct kip_lua_progress_fn {
  lua_State *L;
  int fn; /* stack index of the function, 0 = none */
} kip_lua_progress_fn;
void kip_lua_progress(int64_t done, int64_t total, void *ud);

/* kip_json_decode.c: JSON text -> the Lua value pushed (0), or -1 with
** msg set (nothing pushed). Objects remember their key order in the
** registry's weak KIP_KEY_ORDER table when `ordered`; arrays carry the
** KIP_ARRAY_MT metatable; null is the NULL light userdata. */
#define KIP_ARRAY_MT "kip.array"
#define KIP_KEY_ORDER "kip.key_order"
#define KIP_JSON_DECODE_MAX_DEPTH 200
int kip_lua_json_decode(lua_State *L, const char *text, size_t len, int ordered, char *msg, size_t msgn);

/* kip_embedder.c: set_embedder, embed_pending, reset_vectors, vector_status, embed */
extern const luaL_Reg kip_embedder_methods[];

#endif
