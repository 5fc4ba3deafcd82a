package io.tributary.broker.share;

import io.tributary.jms.format.SelectorClientId;
import io.tributary.jms.selector.MessageSelector;
import jakarta.jms.InvalidSelectorException;

import java.util.concurrent.ConcurrentHashMap;

/**
 * The message selectors that share-group members declare in their client ids ({@link SelectorClientId}), each
 * parsed once. A client id without a selector selects every record.
 *
 * <p>Thread-safe. The cache holds at most {@value #MAX_CACHED} client ids and starts afresh when full: client ids
 * come from clients, so their number is not the broker's to bound.
 */
public final class MemberSelectors {

    private static final int MAX_CACHED = 10_000;

    /** A client id's selector, or why it could not be parsed. */
    public record Parsed(MessageSelector selector, String error) {
    }

    private static final Parsed ALL = new Parsed(MessageSelector.all(), null);

    private final ConcurrentHashMap<String, Parsed> byClientId = new ConcurrentHashMap<>();

    /** The selector of the member whose requests carry {@code clientId}. */
    public Parsed forClientId(String clientId) {
        String text = SelectorClientId.selectorOf(clientId);
        if (text == null) {
            return ALL;
        }
        Parsed parsed = byClientId.get(clientId);
        if (parsed == null) {
            if (byClientId.size() >= MAX_CACHED) {
                byClientId.clear();
            }
            parsed = byClientId.computeIfAbsent(clientId, id -> parse(text));
        }
        return parsed;
    }

    private static Parsed parse(String text) {
        try {
            return new Parsed(MessageSelector.parse(text), null);
        } catch (InvalidSelectorException e) {
            return new Parsed(null, "the client id's selector is not valid: " + e.getMessage());
        }
    }
}
