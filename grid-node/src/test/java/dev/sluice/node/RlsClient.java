package dev.sluice.node;

import com.google.protobuf.UInt64Value;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A gRPC client of a node's rate limit service built from Envoy's own stubs, as Envoy calls it:
 * plaintext HTTP/2 to 127.0.0.1. Close it after the test.
 */
final class RlsClient implements AutoCloseable {
  private final ManagedChannel channel;
  private final RateLimitServiceGrpc.RateLimitServiceBlockingStub stub;

  RlsClient(int port) {
    this.channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    this.stub = RateLimitServiceGrpc.newBlockingStub(channel);
  }

  /** {@code ShouldRateLimit}, waiting at most 10 s. */
  RateLimitResponse call(RateLimitRequest request) {
    return stub.withDeadlineAfter(10, TimeUnit.SECONDS).shouldRateLimit(request);
  }

  /** One request of {@code descriptors} in {@code domain}. */
  RateLimitResponse call(String domain, RateLimitDescriptor... descriptors) {
    return call(request(domain, descriptors).build());
  }

  static RateLimitRequest.Builder request(String domain, RateLimitDescriptor... descriptors) {
    return RateLimitRequest.newBuilder()
        .setDomain(domain)
        .addAllDescriptors(Arrays.asList(descriptors));
  }

  /** A descriptor of {@code key, value, key, value, ...}. */
  static RateLimitDescriptor descriptor(String... keyValues) {
    return descriptorBuilder(keyValues).build();
  }

  static RateLimitDescriptor.Builder descriptorBuilder(String... keyValues) {
    RateLimitDescriptor.Builder descriptor = RateLimitDescriptor.newBuilder();
    for (int i = 0; i < keyValues.length; i += 2) {
      descriptor.addEntries(
          RateLimitDescriptor.Entry.newBuilder().setKey(keyValues[i]).setValue(keyValues[i + 1]));
    }
    return descriptor;
  }

  /** A descriptor that asks for {@code hits} of its limit. */
  static RateLimitDescriptor hits(long hits, String... keyValues) {
    return descriptorBuilder(keyValues).setHitsAddend(UInt64Value.of(hits)).build();
  }

  /** The headers the answer asks Envoy to add, by name (the last of each name). */
  static Map<String, String> headers(RateLimitResponse response) {
    Map<String, String> headers = new HashMap<>();
    for (HeaderValue header : response.getResponseHeadersToAddList()) {
      headers.put(header.getKey(), header.getValue());
    }
    return headers;
  }

  static @Nullable String header(RateLimitResponse response, String name) {
    return headers(response).get(name);
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
