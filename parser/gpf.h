/*
 * gpf.h -- GPUexplore's `.gpf` network files, read into and written from the
 * warpex image (network/image.h).  Layout: docs/formats.md (".gpf"); the
 * full mapping, with its choices, is in docs/image.md ("GPUexplore
 * .gpf interoperability").
 *
 * A .gpf file is one decimal integer per line: header values, the vector
 * layout, packed 32-bit transition entries (bit 0 sync flag, bits 1..bits_act
 * label id, then slots of target + 1), packed per-state offsets and, per
 * synchronising label id, bitmask rules over the processes.  GPUexplore keeps
 * no result labels (it counts states, not transitions), so:
 *
 * Reading: process p becomes component "p<p>"; a local entry becomes a
 * component transition labelled "local" and a sync entry with label id a one
 * labelled "L<a>" (e.g. "L3").  Rules: (p, local) -> local for every process
 * with local entries, and each sync rule of label a becomes a rule whose
 * participants all perform L<a>, with result L<a>.  So product transitions are
 * labelled "local" or "L<a>"; only state counts (and the unlabelled graph) are
 * comparable with GPUexplore and with the network the file was made from.
 * No label is hidden (image.hidden == UINT32_MAX).  The number of states of a
 * process is not stored in the format; it is inferred from the packed offsets
 * (docs/image.md says how), which can add unreachable states but never changes
 * the reachable product.  Validation is strict: every line must be one integer
 * (optional blanks and a minus sign; words may be written signed or unsigned),
 * counts must match the file, offsets must be monotone and in range, targets in
 * range, entries ordered as GPUexplore's kernel requires (local first, then
 * sync by label), rules non-empty with >= 2 processes; any violation is
 * WX_EINPUT with file:line:col.  Values that GPUexplore cannot handle (more
 * than 31 processes, more than 9 ints per vector, bits_act + bits_state > 31)
 * are rejected the same way.
 *
 * Writing: one GPUexplore label id per synchronisation class (id = class id);
 * the class's rule masks are its rules; local entries (any result label)
 * become local entries with label 0, their targets merged.  Vector fields get
 * at least 1 bit (GPUexplore's field macros misread 0-bit fields at word
 * boundaries) and avoid bit 30 of the first int (a stored vector whose first
 * int reads 0x7FFFFFFF looks empty to GPUexplore) and bits 30..31 of the last
 * int (the new flag and the --por flag).  Every GPUexplore limit is checked
 * and reported as WX_ELIMIT: at most 31 processes, bits_act + bits_state <= 31
 * per process, bits_act <= 30 (the kernel's "no label" sentinel 1 << bits_act
 * must fit an int), at most 9 ints per vector (MAX_SIZE), offsets narrower
 * than 32 bits, fewer than 2^31 entries.  Packed words with bit 31 set are
 * written as negative numbers (atoi-portable).
 */
#ifndef WX_GPF_H
#define WX_GPF_H

#include <stddef.h>

#include "../network/image.h"
#include "../util/error.h"

/* Reads a .gpf file into *out (free with image_free).  WX_EINPUT with
 * file:line:col for malformed input, WX_ESYSTEM when the file cannot be read,
 * WX_ELIMIT when out of memory. */
int gpf_read(const char *path, struct image *out, struct wx_error *err);

/* The same on text already in memory; `name` is used in error locations. */
int gpf_parse(const char *text, size_t len, const char *name, struct image *out,
              struct wx_error *err);

/* Writes the image as a .gpf file (through util/outfile.h: a regular file
 * is replaced only when complete, a device is written in place).  WX_ELIMIT
 * when the network exceeds a GPUexplore limit (the file is then not
 * created), WX_ESYSTEM on I/O errors. */
int gpf_write(const struct image *img, const char *path, struct wx_error *err);

#endif
