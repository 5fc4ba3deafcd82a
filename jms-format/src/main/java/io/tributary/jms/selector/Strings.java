package io.tributary.jms.selector;

/** Writing strings back as selector text. */
final class Strings {

    private Strings() {
    }

    /** A string literal that reads back as {@code value}: single quotes, a quote inside doubled. */
    static String quote(String value) {
        return "'" + value.replace("'", "''") + "'";
    }
}
