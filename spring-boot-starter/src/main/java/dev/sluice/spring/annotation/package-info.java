/** {@code @RateLimited} on bean methods, through the client SDK's one gate. */
@NullMarked
package dev.sluice.spring.annotation;

import org.jspecify.annotations.NullMarked;
