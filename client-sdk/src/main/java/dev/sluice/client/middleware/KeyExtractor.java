package dev.sluice.client.middleware;

import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Maps an HTTP request to the key it is limited by, over the server-free {@link GateRequest} that
 * every adapter gives, so each extractor is written once for all of them. Returning {@code null}
 * means "no key": the request is not limited by this rule (chain {@link #orElse} to fall back
 * instead, e.g. the principal, else the client IP). A key a runtime cannot hold (empty, or more
 * than 512 bytes of UTF-8) is refused by the gate with a 400, and nothing is counted.
 */
@FunctionalInterface
public interface KeyExtractor {

  @Nullable String keyOf(GateRequest request);

  /** This extractor's key, or {@code fallback}'s when this one has none. */
  default KeyExtractor orElse(KeyExtractor fallback) {
    return request -> {
      String key = keyOf(request);
      return key != null ? key : fallback.keyOf(request);
    };
  }

  /** The peer address of the connection; {@code X-Forwarded-For} is ignored. */
  static KeyExtractor clientIp() {
    return clientIp(TrustedProxies.none());
  }

  /**
   * The client's address as the trusted proxies saw it.
   *
   * <p>{@code X-Forwarded-For} is a list each proxy appends the address it received from to, so
   * only its right end is written by proxies we know; everything to the left of the first untrusted
   * hop may be forged by the client. So: if the connection's peer is not a trusted proxy, the peer
   * is the client. Otherwise walk the list from the right, skipping trusted proxies; the first
   * address that is not one is the client. If an entry is not an IP literal, the last trusted hop
   * before it is used rather than a string the client chose. If every hop is trusted, the leftmost
   * one is the client.
   */
  static KeyExtractor clientIp(TrustedProxies trusted) {
    return request -> {
      String peer = request.remoteAddress();
      if (!trusted.contains(peer)) {
        return peer;
      }
      List<String> hops = new ArrayList<>();
      for (String header : request.headers("X-Forwarded-For")) {
        for (String hop : header.split(",")) {
          if (!hop.isBlank()) {
            hops.add(hop.trim());
          }
        }
      }
      String client = peer;
      for (int i = hops.size() - 1; i >= 0; i--) {
        String hop = hops.get(i);
        if (!TrustedProxies.isAddress(hop)) {
          return client;
        }
        client = hop;
        if (!trusted.contains(hop)) {
          return hop;
        }
      }
      return client;
    };
  }

  /** The value of a request header, e.g. an API key; none when the header is absent or blank. */
  static KeyExtractor header(String name) {
    return request -> {
      String value = request.header(name);
      return value == null || value.isBlank() ? null : value.trim();
    };
  }

  /** The authenticated principal's name; none for anonymous requests. */
  static KeyExtractor principal() {
    return request -> {
      Principal principal = request.principal();
      return principal == null ? null : principal.getName();
    };
  }
}
