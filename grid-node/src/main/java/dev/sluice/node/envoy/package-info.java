/**
 * The Envoy rate limit service front end (issue 19, docs/envoy.md): {@code
 * envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit} over gRPC and the peer's {@code POST
 * /json}, configured with envoyproxy/ratelimit's files, counted by Sluice.
 *
 * <p>Start with {@link dev.sluice.node.envoy.EnvoyFrontEnd}, then {@code ShouldRateLimit}.
 */
@NullMarked
package dev.sluice.node.envoy;

import org.jspecify.annotations.NullMarked;
