package io.tributary.jms.kafka;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What a durable subscription was created with, its topic, selector and noLocal, as the metadata committed with
 * each of its offsets. A durable subscription created again with another topic, selector or noLocal is a new one
 * (Jakarta Messaging 3.1, {@code Session.createDurableConsumer} and {@code createSharedDurableConsumer}); the
 * metadata is how whoever creates it next, this provider or the resource adapter, sees the change.
 *
 * <p>A digest, not the text: Kafka bounds offset metadata ({@code offset.metadata.max.bytes}, 4 KiB by default), a
 * selector is not bounded.
 */
public final class SubscriptionDefinition {

    /** The start of offset metadata that carries a definition. */
    public static final String PREFIX = "jms-subscription-sha256:";

    private SubscriptionDefinition() {
    }

    /** The definition of a durable subscription; a null and a blank selector are both no selector. */
    public static String of(String topic, String selector, boolean noLocal) {
        String text = topic + '\n' + (selector == null || selector.isBlank() ? "" : selector) + '\n' + noLocal;
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return PREFIX + HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /**
     * Whether metadata committed with an offset shows another definition than {@code definition}. Metadata without
     * the prefix (commits of an earlier version or of a plain Kafka client) tells nothing: the subscription is kept.
     */
    public static boolean differs(String committedMetadata, String definition) {
        return committedMetadata != null && committedMetadata.startsWith(PREFIX)
                && !committedMetadata.equals(definition);
    }
}
