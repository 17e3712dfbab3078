import { createContext } from '/assets/vendor/preact.js';
import { useContext } from '/assets/vendor/preact-hooks.js';

export const Store = createContext(null);
export const useStore = () => useContext(Store);
