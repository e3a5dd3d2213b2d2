package dev.sluice.rest;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Hides a key's text from viewers without the admin token while keeping keys apart: a key shows as
 * {@code key#} and the first 12 hex digits of its HMAC-SHA256 under a secret drawn when the node
 * starts. The same key masks the same on one node for its lifetime, so a viewer can follow "the
 * same key is still denied" without learning it; a plain hash would not do, since an IPv4 address
 * or a user id is found back from its hash by trying them all. Masks differ between nodes and
 * restarts.
 */
final class KeyMask {
  static final String PREFIX = "key#";

  private final SecretKeySpec secret;

  KeyMask() {
    byte[] bytes = new byte[32];
    new SecureRandom().nextBytes(bytes);
    this.secret = new SecretKeySpec(bytes, "HmacSHA256");
  }

  String mask(String key) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(secret);
      byte[] digest = mac.doFinal(key.getBytes(StandardCharsets.UTF_8));
      return PREFIX + HexFormat.of().formatHex(digest, 0, 6);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("every JVM has HmacSHA256", e);
    }
  }
}
