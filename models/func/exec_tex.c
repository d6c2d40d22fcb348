/* exec_tex — placeholder until textures land (see func_tex.h). */
#include "func_internal.h"
void fx_register_tex(fx_builder *t) { (void)t; }
