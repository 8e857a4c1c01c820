/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-format.c - fmt_sanitize() and fmt_fit() on arbitrary bytes.
 *
 * Properties: sanitized output is valid UTF-8 with no C0, DEL or C1
 * control; its length matches the return value when it fits; fmt_fit()
 * never uses more columns than asked nor writes past its buffer.
 */
#include <locale.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_clean(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = s[i];
		size_t len;

		if (c < 0x20 || c == 0x7f)
			__builtin_trap();
		if (c < 0x80) {
			i++;
			continue;
		}
		len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
		if (!len || c > 0xf4 || i + len > n)
			__builtin_trap();
		for (size_t k = 1; k < len; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				__builtin_trap();
		if (c == 0xc2 && s[i + 1] < 0xa0) /* C1 */
			__builtin_trap();
		i += len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool init;
	char out[512], fit[64];
	size_t n, sz;
	int width, cols;

	if (!init) {
		setlocale(LC_CTYPE, "C.UTF-8");
		init = true;
	}
	if (size < 2)
		return 0;
	sz = data[0] % sizeof(out) + 1;
	width = (int)(data[1] % 80) - 2;
	data += 2;
	size -= 2;

	n = fmt_sanitize(out, sz, (const char *)data, size);
	if (strlen(out) > n || strlen(out) >= sz)
		__builtin_trap();
	check_clean((const unsigned char *)out, strlen(out));
	if (n < sz && strlen(out) != n)
		__builtin_trap();

	cols = fmt_fit(fit, sz < sizeof(fit) ? sz : sizeof(fit), out, width);
	if (cols < 0 || (width >= 0 && cols > width) || (width < 0 && cols))
		__builtin_trap();
	check_clean((const unsigned char *)fit, strlen(fit));

	/* raw bytes straight into fmt_fit as well */
	memcpy(out, data, size < sizeof(out) - 1 ? size : sizeof(out) - 1);
	out[size < sizeof(out) - 1 ? size : sizeof(out) - 1] = '\0';
	cols = fmt_fit(fit, sizeof(fit), out, width);
	if (cols < 0 || (width >= 0 && cols > width))
		__builtin_trap();
	check_clean((const unsigned char *)fit, strlen(fit));
	return 0;
}
