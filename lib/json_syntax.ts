// The 400 message of a JSON body that does not parse, in the core's words: the byte, line and
// column where the grammar breaks and what it expected there (the core walks the text again), so
// a body the library or a route parses is refused as the core refuses the bodies it parses.
import { type DescribeMalformed, parserMessage } from './http/schema';
import { native } from './native';

/** Where and why `text` failed JSON.parse; the parser's own words when its grammar holds (a RangeError of a value, say). */
export const malformedJson: DescribeMalformed = (text, err) => native.jsonSyntaxError(text) ?? parserMessage(text, err);
