/**
 * {@code @RateLimited} on bean methods, through the client SDK's one gate.
 *
 * <p>Start with {@link dev.sluice.spring.annotation.RateLimited}, then {@link
 * dev.sluice.spring.annotation.RateLimitedInterceptor}.
 */
@NullMarked
package dev.sluice.spring.annotation;

import org.jspecify.annotations.NullMarked;
