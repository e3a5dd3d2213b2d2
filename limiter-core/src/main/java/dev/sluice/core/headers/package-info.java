/**
 * The rate-limit headers of an HTTP answer ({@link dev.sluice.core.headers.RateLimitHeaders}),
 * written once for the REST API, the client SDK's HTTP gates and the Envoy front end, as name/value
 * pairs that each surface sets on its own response type.
 *
 * <p>Start with {@link dev.sluice.core.headers.RateLimitHeaders#of}.
 */
@NullMarked
package dev.sluice.core.headers;

import org.jspecify.annotations.NullMarked;
