export { methodName } from '../catalogue/names';
