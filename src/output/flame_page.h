/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * flame_page.h - the flame graph page of `--format html` (html.c), built
 * in from output/flame/page.html, flame.css and the page's modules
 * (output/flame/, bundled into one script) by output/flame/embed.py
 * (the build's flame_page.c): the page up to its profile data, and the
 * rest after it.
 */
#ifndef STACKTOP_FLAME_PAGE_H
#define STACKTOP_FLAME_PAGE_H

#include <stddef.h>

extern const char flame_page_head[];
extern const size_t flame_page_head_len;
extern const char flame_page_tail[];
extern const size_t flame_page_tail_len;

#endif /* STACKTOP_FLAME_PAGE_H */
