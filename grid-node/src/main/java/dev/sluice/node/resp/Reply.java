package dev.sluice.node.resp;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A reply, before it is written in the connection's protocol ({@link ReplyEncoder}): RESP3 types,
 * each with the RESP2 form a Redis server gives it (a map is a flat array of keys and values, a
 * double a bulk string, null a null bulk string).
 */
sealed interface Reply {
  /** {@code +OK}. */
  record Status(String text) implements Reply {}

  /** {@code -ERR ...}: the text starts with its code. */
  record Error(String text) implements Reply {}

  /** {@code :42}. */
  record Int(long value) implements Reply {}

  /** {@code $3 abc}. */
  record Bulk(byte[] bytes) implements Reply {
    @Override
    public boolean equals(Object o) {
      return o instanceof Bulk other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
      return "Bulk[" + new String(bytes, StandardCharsets.UTF_8) + "]";
    }
  }

  /** RESP3 {@code _}; RESP2 {@code $-1}. */
  record Null() implements Reply {}

  /** RESP3 {@code ,1.5}; RESP2 a bulk string. */
  record Double(double value) implements Reply {}

  /** {@code *n}. */
  record Array(List<Reply> items) implements Reply {}

  /** RESP3 {@code ~n}; RESP2 an array. */
  record Set(List<Reply> items) implements Reply {}

  /** RESP3 {@code %n}; RESP2 an array of 2n: each key, then its value. */
  record Map(List<Reply> keysAndValues) implements Reply {}

  /** RESP3 {@code =n txt:...}; RESP2 a bulk string. */
  record Verbatim(String text) implements Reply {}

  Reply OK = new Status("OK");
  Reply NULL = new Null();

  static Reply status(String text) {
    return new Status(text);
  }

  static Reply error(String text) {
    return new Error(text);
  }

  static Reply integer(long value) {
    return new Int(value);
  }

  static Reply bulk(String text) {
    return new Bulk(text.getBytes(StandardCharsets.UTF_8));
  }

  static Reply bulk(byte[] bytes) {
    return new Bulk(bytes);
  }

  static Reply array(List<Reply> items) {
    return new Array(items);
  }

  static Reply array(Reply... items) {
    return new Array(List.of(items));
  }

  /** An array of integers: {@code CL.THROTTLE}'s and {@code GCRA}'s answer. */
  static Reply integers(long... values) {
    List<Reply> items = new ArrayList<>(values.length);
    for (long value : values) {
      items.add(new Int(value));
    }
    return new Array(items);
  }

  static Reply set(List<Reply> items) {
    return new Set(items);
  }

  /** A map from alternating keys (bulk strings) and values. */
  static Reply map(Object... keysAndValues) {
    List<Reply> items = new ArrayList<>(keysAndValues.length);
    for (int i = 0; i < keysAndValues.length; i++) {
      Object item = keysAndValues[i];
      items.add(item instanceof Reply reply ? reply : bulk((String) item));
    }
    return new Map(items);
  }

  static Reply map(List<Reply> keysAndValues) {
    return new Map(keysAndValues);
  }
}
