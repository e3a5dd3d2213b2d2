package dev.sluice.client.middleware;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The proxies whose {@code X-Forwarded-For} entries are believed: addresses ({@code 10.0.0.7},
 * {@code ::1}) and CIDR ranges ({@code 10.0.0.0/8}, {@code fd00::/8}).
 *
 * <p>Only IP literals are parsed. A forwarded entry that is not one (a hostname, garbage an
 * attacker wrote) is never resolved: it is simply not an address.
 */
public final class TrustedProxies {
  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]{2,45}");

  private final List<byte[]> networks = new ArrayList<>();
  private final List<Integer> prefixes = new ArrayList<>();

  private TrustedProxies(List<String> entries) {
    for (String entry : entries) {
      String trimmed = entry.trim();
      int slash = trimmed.indexOf('/');
      String address = slash < 0 ? trimmed : trimmed.substring(0, slash);
      byte[] bytes = parse(address);
      if (bytes == null) {
        throw new IllegalArgumentException(
            "trustedProxies: '" + entry + "' is not an IP address or CIDR range");
      }
      int prefix = bytes.length * 8;
      if (slash >= 0) {
        try {
          prefix = Integer.parseInt(trimmed.substring(slash + 1));
        } catch (NumberFormatException e) {
          prefix = -1;
        }
        if (prefix < 0 || prefix > bytes.length * 8) {
          throw new IllegalArgumentException(
              "trustedProxies: '" + entry + "' has a prefix outside 0.." + bytes.length * 8);
        }
      }
      networks.add(bytes);
      prefixes.add(prefix);
    }
  }

  /** Trusts the given addresses and ranges. */
  public static TrustedProxies of(String... entries) {
    return new TrustedProxies(List.of(entries));
  }

  public static TrustedProxies of(List<String> entries) {
    return new TrustedProxies(entries);
  }

  /** Trusts nobody: {@code X-Forwarded-For} is ignored. */
  public static TrustedProxies none() {
    return new TrustedProxies(List.of());
  }

  public boolean contains(String address) {
    byte[] bytes = parse(address);
    if (bytes == null) {
      return false;
    }
    for (int i = 0; i < networks.size(); i++) {
      if (matches(networks.get(i), prefixes.get(i), bytes)) {
        return true;
      }
    }
    return false;
  }

  private static boolean matches(byte[] network, int prefix, byte[] address) {
    if (network.length != address.length) {
      return false;
    }
    int full = prefix / 8;
    for (int i = 0; i < full; i++) {
      if (network[i] != address[i]) {
        return false;
      }
    }
    int rest = prefix % 8;
    if (rest == 0) {
      return true;
    }
    int mask = 0xFF << (8 - rest);
    return (network[full] & mask) == (address[full] & mask);
  }

  /** Whether {@code text} is an IP literal. */
  static boolean isAddress(String text) {
    return parse(text) != null;
  }

  /** The address's bytes, or {@code null} if it is not an IP literal. Never does a DNS lookup. */
  static byte @Nullable [] parse(String text) {
    String s = text.trim();
    if (s.startsWith("[") && s.endsWith("]")) {
      s = s.substring(1, s.length() - 1);
    }
    boolean v4 = IPV4.matcher(s).matches();
    if (!v4 && !(s.indexOf(':') >= 0 && IPV6.matcher(s).matches())) {
      return null;
    }
    if (v4) {
      for (String part : s.split("\\.")) {
        if (Integer.parseInt(part) > 255) {
          return null;
        }
      }
    }
    try {
      // A literal (digits and dots, or hex and colons) is parsed, never looked up.
      byte[] bytes = InetAddress.getByName(s).getAddress();
      return bytes;
    } catch (UnknownHostException e) {
      return null;
    }
  }
}
