/**
 * printWidth 140: the code was written wide (16k lines, 422 over 140 columns, 874 over 120, up
 * to 224); at 140 the one-time reformat rewraps 76 files / ~3.3k lines, at 120 it would be 87
 * files / ~5k lines, mostly splitting call chains and signatures that read fine on one line.
 * singleQuote and trailing commas everywhere ("all") are what the code already does.
 *
 * @type {import('prettier').Config}
 */
export default {
  printWidth: 140,
  singleQuote: true,
  trailingComma: 'all',
};
