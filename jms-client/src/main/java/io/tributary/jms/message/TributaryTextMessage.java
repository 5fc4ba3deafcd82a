package io.tributary.jms.message;

import jakarta.jms.JMSException;
import jakarta.jms.TextMessage;

/**
 * A message whose body is a {@code String}, or null. Travels as the UTF-8 bytes of the text (see
 * {@link MessageCodec}). Not thread-safe, like every message.
 */
public class TributaryTextMessage extends TributaryMessage implements TextMessage {

    private String text;

    /** An empty text message, as {@code Session.createTextMessage()} returns. */
    public TributaryTextMessage() {
    }

    /** A text message holding {@code text}, as {@code Session.createTextMessage(String)} returns. */
    public TributaryTextMessage(String text) {
        this.text = text;
    }

    @Override
    public void setText(String text) throws JMSException {
        checkBodyWritable();
        this.text = text;
    }

    @Override
    public String getText() {
        return text;
    }

    @Override
    public void clearBody() throws JMSException {
        super.clearBody();
        text = null;
    }

    @Override
    Object body() {
        return text;
    }

    @Override
    String bodyTypeName() {
        return "TextMessage";
    }
}
