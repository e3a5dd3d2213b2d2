package dev.sluice.bench.memory;

import java.io.ByteArrayOutputStream;

/** Unsigned LEB128 varints on byte arrays, for the candidate encodings. */
final class Varints {
  private Varints() {}

  static void write(ByteArrayOutputStream out, long value) {
    if (value < 0) {
      throw new IllegalArgumentException("negative: " + value);
    }
    while ((value & ~0x7FL) != 0) {
      out.write((int) ((value & 0x7F) | 0x80));
      value >>>= 7;
    }
    out.write((int) value);
  }

  static int size(long value) {
    int size = 1;
    while ((value & ~0x7FL) != 0) {
      size++;
      value >>>= 7;
    }
    return size;
  }

  /** A reader over a byte array. */
  static final class Reader {
    private final byte[] bytes;
    private int position;

    Reader(byte[] bytes, int position) {
      this.bytes = bytes;
      this.position = position;
    }

    boolean hasMore() {
      return position < bytes.length;
    }

    int position() {
      return position;
    }

    long next() {
      long value = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (position >= bytes.length) {
          throw new IllegalArgumentException("truncated varint at " + position);
        }
        byte b = bytes[position++];
        value |= (long) (b & 0x7F) << shift;
        if (b >= 0) {
          return value;
        }
      }
      throw new IllegalArgumentException("varint longer than 64 bits");
    }

    /** The next {@code length} bytes, skipped over. */
    int skip(int length) {
      int start = position;
      if (length < 0 || position + length > bytes.length) {
        throw new IllegalArgumentException("truncated field at " + position);
      }
      position += length;
      return start;
    }
  }
}
