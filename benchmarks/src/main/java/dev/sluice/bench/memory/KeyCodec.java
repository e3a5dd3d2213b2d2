package dev.sluice.bench.memory;

import java.nio.charset.StandardCharsets;

/** How a candidate turns (rule, subject) into the state map's key. */
enum KeyCodec {
  /** Today's key: the String {@code <rule>|<subject>}. */
  STRING {
    @Override
    Object key(String rule, int ruleId, String subject) {
      return rule + '|' + subject;
    }
  },
  /** A rule id and the subject's bytes ({@link CompactKey}). */
  COMPACT {
    @Override
    Object key(String rule, int ruleId, String subject) {
      return new CompactKey(ruleId, subject.getBytes(StandardCharsets.UTF_8));
    }
  },
  /**
   * A 64-bit hash of (rule id, subject) as a {@code Long}: 8 B of payload whatever the subject's
   * length. Two subjects whose hashes collide share one state, which only makes their answers
   * stricter (they count into one budget), never more permissive; at 10^6 active keys the chance of
   * any collision is about 3 in 10^8. The hash here is not keyed, so someone who can choose
   * subjects could search for one that collides with a victim's; a product version would use a
   * keyed hash (SipHash with a cluster secret).
   */
  HASH64 {
    @Override
    Object key(String rule, int ruleId, String subject) {
      return hash64(ruleId, subject.getBytes(StandardCharsets.UTF_8));
    }
  };

  abstract Object key(String rule, int ruleId, String subject);

  /** FNV-1a over the rule id and the bytes, then Murmur3's 64-bit finalizer. */
  static long hash64(int ruleId, byte[] bytes) {
    long h = 0xcbf29ce484222325L;
    h = (h ^ ruleId) * 0x100000001b3L;
    for (byte b : bytes) {
      h = (h ^ (b & 0xFF)) * 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }
}
